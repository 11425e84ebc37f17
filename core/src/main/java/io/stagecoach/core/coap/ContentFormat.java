package io.stagecoach.core.coap;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A CoAP Content-Format identifier (RFC 7252 §12.3) with its IANA registry media type.
 *
 * <p>An open value: {@link #valueOf(int)} returns the named constant for the common registered
 * formats and an unnamed instance for any other number in 0..65535.
 */
public final class ContentFormat {

    private static final Map<Integer, ContentFormat> BY_NUMBER = new HashMap<>();
    private static final Map<String, ContentFormat> BY_NAME = new HashMap<>();

    public static final ContentFormat TEXT_PLAIN = define(0, "text/plain;charset=utf-8", "text");
    public static final ContentFormat COSE_ENCRYPT0 = define(16, "application/cose;cose-type=\"cose-encrypt0\"", null);
    public static final ContentFormat LINK_FORMAT = define(40, "application/link-format", "link");
    public static final ContentFormat XML = define(41, "application/xml", "xml");
    public static final ContentFormat OCTET_STREAM = define(42, "application/octet-stream", "octet");
    public static final ContentFormat EXI = define(47, "application/exi", "exi");
    public static final ContentFormat JSON = define(50, "application/json", "json");
    public static final ContentFormat JSON_PATCH_JSON = define(51, "application/json-patch+json", null);
    public static final ContentFormat MERGE_PATCH_JSON = define(52, "application/merge-patch+json", null);
    public static final ContentFormat CBOR = define(60, "application/cbor", "cbor");
    public static final ContentFormat CWT = define(61, "application/cwt", null);
    public static final ContentFormat SENML_JSON = define(110, "application/senml+json", null);
    public static final ContentFormat SENSML_JSON = define(111, "application/sensml+json", null);
    public static final ContentFormat SENML_CBOR = define(112, "application/senml+cbor", null);
    public static final ContentFormat SENSML_CBOR = define(113, "application/sensml+cbor", null);
    public static final ContentFormat LWM2M_TLV = define(11542, "application/vnd.oma.lwm2m+tlv", null);
    public static final ContentFormat LWM2M_JSON = define(11543, "application/vnd.oma.lwm2m+json", null);

    private final int number;
    private final String mediaType;

    private ContentFormat(int number, String mediaType) {
        this.number = number;
        this.mediaType = mediaType;
    }

    private static ContentFormat define(int number, String mediaType, String alias) {
        ContentFormat f = new ContentFormat(number, mediaType);
        BY_NUMBER.put(number, f);
        BY_NAME.put(mediaType, f);
        if (alias != null) {
            BY_NAME.put(alias, f);
        }
        return f;
    }

    /** The named constant for {@code number}, or an unnamed format when not listed here. */
    public static ContentFormat valueOf(int number) {
        ContentFormat f = BY_NUMBER.get(number);
        if (f != null) {
            return f;
        }
        if (number < 0 || number > 65535) {
            throw new IllegalArgumentException("content format must be 0..65535, got " + number);
        }
        return new ContentFormat(number, null);
    }

    /**
     * Parses a media type ({@code "application/json"}), a short alias ({@code text, link, xml,
     * octet, exi, json, cbor}) or a decimal number.
     */
    public static ContentFormat parse(String text) {
        String key = text.trim().toLowerCase(Locale.ROOT);
        ContentFormat f = BY_NAME.get(key);
        if (f != null) {
            return f;
        }
        if ("text/plain".equals(key)) {
            return TEXT_PLAIN;
        }
        try {
            return valueOf(Integer.parseInt(key));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("unknown content format \"" + text + "\"", e);
        }
    }

    public int number() {
        return number;
    }

    /** The registered media type, or {@code null} when this number is not listed here. */
    public String mediaType() {
        return mediaType;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ContentFormat && ((ContentFormat) o).number == number;
    }

    @Override
    public int hashCode() {
        return number;
    }

    @Override
    public String toString() {
        return mediaType == null ? Integer.toString(number) : mediaType;
    }
}
