package io.stagecoach.core.coap;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An immutable message body (RFC 7252 §5.5), prepared once and then shared by every message built
 * with {@link Message.Builder#payload(Payload)} without a copy: a resource answering the same body
 * again and again encodes it once. Nobody outside this package ever sees the array, so sharing it
 * cannot let a message change.
 */
public final class Payload {

    /** The empty body. */
    public static final Payload EMPTY = new Payload(new byte[0], "");

    private final byte[] bytes;
    /** The text this body was encoded from, or {@code null} for binary content. */
    private final String text;

    private Payload(byte[] bytes, String text) {
        this.bytes = bytes;
        this.text = text;
    }

    /** {@code text} encoded in UTF-8. */
    public static Payload utf8(String text) {
        return new Payload(text.getBytes(StandardCharsets.UTF_8), text);
    }

    /** A copy of {@code bytes}. */
    public static Payload of(byte[] bytes) {
        return new Payload(bytes.clone(), null);
    }

    /** Number of bytes. */
    public int length() {
        return bytes.length;
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Whether this body was made by {@link #utf8} from a text equal to {@code candidate}. */
    public boolean isUtf8Of(String candidate) {
        return text != null && (text == candidate || text.equals(candidate));
    }

    /** The shared array, for the message builder of this package only. */
    byte[] array() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Payload p && Arrays.equals(bytes, p.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "Payload[" + bytes.length + " bytes]";
    }
}
