package io.stagecoach.core.client;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Response;
import io.stagecoach.elements.SafeText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link CoapClient} call got back: the response code, options and payload, and the
 * round-trip time. Any code counts as an answer (4.04 is a response, not a failure); calls that
 * get no response fail with an exception instead.
 */
public final class CoapResponse {

    private final Response response;
    private final Duration rtt;

    public CoapResponse(Response response, Duration rtt) {
        this.response = Objects.requireNonNull(response, "response");
        this.rtt = Objects.requireNonNull(rtt, "rtt");
    }

    public Code code() {
        return response.code();
    }

    /** Whether the code is of class 2 (RFC 7252 §5.9.1). */
    public boolean isSuccess() {
        return response.code().isSuccess();
    }

    public OptionSet options() {
        return response.options();
    }

    /** A copy of the payload; empty when there is none. */
    public byte[] payload() {
        return response.payload();
    }

    /** The payload decoded as UTF-8. */
    public String payloadText() {
        return response.payloadString();
    }

    /** Content-Format of the payload (RFC 7252 §5.10.3), or {@code null} when the response has none. */
    public ContentFormat contentFormat() {
        int number = response.options().contentFormat();
        return number < 0 ? null : ContentFormat.valueOf(number);
    }

    /**
     * Location-Path and Location-Query as a relative URI, e.g. {@code /items/7?v=1}; "" when absent
     * (RFC 7252 §5.10.7). The option values "can contain any character sequence", so each segment
     * and argument is percent-encoded as RFC 7252 §6.5 composes a URI: every byte of its UTF-8 form
     * outside the RFC 3986 unreserved and sub-delims characters, and {@code &} too, becomes
     * {@code %XX} ({@code /}, {@code ?}, {@code &}, {@code %}, {@code #}, spaces, control characters,
     * non-ASCII). A segment "." or ".." (which §5.10.7 forbids) becomes {@code %2E} or
     * {@code %2E%2E}. So a server cannot make the result read as another path or query: the
     * segments and arguments of {@code CoapUri.parse(base + location())} are exactly the options'
     * values.
     */
    public String location() {
        OptionSet o = response.options();
        List<String> path = o.locationPath();
        List<String> query = o.locationQuery();
        if (path.isEmpty() && query.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (String segment : path) {
            sb.append('/');
            if (segment.equals(".") || segment.equals("..")) {
                sb.append(segment.equals(".") ? "%2E" : "%2E%2E");
            } else {
                percentEncode(sb, segment);
            }
        }
        if (path.isEmpty()) {
            sb.append('/');
        }
        for (int i = 0; i < query.size(); i++) {
            sb.append(i == 0 ? '?' : '&');
            percentEncode(sb, query.get(i));
        }
        return sb.toString();
    }

    /** RFC 3986 §2.3 unreserved (besides letters and digits) and §2.2 sub-delims without '&'. */
    private static final String PLAIN = "-._~!$'()*+,;=";

    private static void percentEncode(StringBuilder sb, String value) {
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || (c < 0x80 && PLAIN.indexOf(c) >= 0)) {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Time from sending the request to receiving this response, on the endpoint's clock. */
    public Duration rtt() {
        return rtt;
    }

    /** The raw response message (type, MID, token, peer), for experts. */
    public Response advanced() {
        return response;
    }

    /**
     * E.g. {@code 2.05 CONTENT "22.5 C"}: the payload as the server sent it is escaped and cut
     * ({@link SafeText#forLog(CharSequence)}), so that logging a response cannot forge log lines.
     */
    @Override
    public String toString() {
        return response.code().toDigits() + " " + response.code().name()
                + (response.payloadLength() > 0 ? " \"" + SafeText.forLog(response.payloadString()) + "\"" : "");
    }
}
