package io.stagecoach.core.coap;

import java.util.Locale;

/**
 * A CoAP code (RFC 7252 §3, §12.1): 3-bit class and 5-bit detail, written {@code c.dd}.
 *
 * <p>An open value: every one of the 256 codes has exactly one instance, so {@code ==} works and
 * {@link #valueOf(int)} never allocates. Codes registered by RFC 7252, RFC 7959, RFC 8132,
 * RFC 8516 and RFC 8323 (the 7.xx signaling codes) carry a name; the others are kept, unnamed, so
 * a message with a code this version does not know still round-trips.
 */
public final class Code {

    private static final Code[] ALL = new Code[256];

    private final int value;
    private final String name;
    private final String text;

    private Code(int value, String name) {
        this.value = value;
        this.name = name;
        String number = String.format(Locale.ROOT, "%d.%02d", value >>> 5, value & 0x1F);
        this.text = name == null ? number : number + " " + name;
    }

    private static Code define(int cls, int detail, String name) {
        int v = cls << 5 | detail;
        Code c = new Code(v, name);
        ALL[v] = c;
        return c;
    }

    /** 0.00: the code of an Empty message (RFC 7252 §4.1). */
    public static final Code EMPTY = define(0, 0, "Empty");
    public static final Code GET = define(0, 1, "GET");
    public static final Code POST = define(0, 2, "POST");
    public static final Code PUT = define(0, 3, "PUT");
    public static final Code DELETE = define(0, 4, "DELETE");
    /** RFC 8132 §2. */
    public static final Code FETCH = define(0, 5, "FETCH");
    /** RFC 8132 §3. */
    public static final Code PATCH = define(0, 6, "PATCH");
    /** RFC 8132 §3. */
    public static final Code IPATCH = define(0, 7, "iPATCH");

    public static final Code CREATED = define(2, 1, "Created");
    public static final Code DELETED = define(2, 2, "Deleted");
    public static final Code VALID = define(2, 3, "Valid");
    public static final Code CHANGED = define(2, 4, "Changed");
    public static final Code CONTENT = define(2, 5, "Content");
    /** RFC 7959 §2.9.1. */
    public static final Code CONTINUE = define(2, 31, "Continue");

    public static final Code BAD_REQUEST = define(4, 0, "Bad Request");
    public static final Code UNAUTHORIZED = define(4, 1, "Unauthorized");
    public static final Code BAD_OPTION = define(4, 2, "Bad Option");
    public static final Code FORBIDDEN = define(4, 3, "Forbidden");
    public static final Code NOT_FOUND = define(4, 4, "Not Found");
    public static final Code METHOD_NOT_ALLOWED = define(4, 5, "Method Not Allowed");
    public static final Code NOT_ACCEPTABLE = define(4, 6, "Not Acceptable");
    /** RFC 7959 §2.9.2. */
    public static final Code REQUEST_ENTITY_INCOMPLETE = define(4, 8, "Request Entity Incomplete");
    /** RFC 8132 §3.4. */
    public static final Code CONFLICT = define(4, 9, "Conflict");
    public static final Code PRECONDITION_FAILED = define(4, 12, "Precondition Failed");
    /** RFC 7252 §5.9.2.9, with the RFC 7959 §2.9.3 use for block-wise transfers. */
    public static final Code REQUEST_ENTITY_TOO_LARGE = define(4, 13, "Request Entity Too Large");
    public static final Code UNSUPPORTED_CONTENT_FORMAT = define(4, 15, "Unsupported Content-Format");
    /** RFC 8132 §3.4. */
    public static final Code UNPROCESSABLE_ENTITY = define(4, 22, "Unprocessable Entity");
    /** RFC 8516 §3. */
    public static final Code TOO_MANY_REQUESTS = define(4, 29, "Too Many Requests");

    public static final Code INTERNAL_SERVER_ERROR = define(5, 0, "Internal Server Error");
    public static final Code NOT_IMPLEMENTED = define(5, 1, "Not Implemented");
    public static final Code BAD_GATEWAY = define(5, 2, "Bad Gateway");
    public static final Code SERVICE_UNAVAILABLE = define(5, 3, "Service Unavailable");
    public static final Code GATEWAY_TIMEOUT = define(5, 4, "Gateway Timeout");
    public static final Code PROXYING_NOT_SUPPORTED = define(5, 5, "Proxying Not Supported");

    // Signaling codes, only over reliable transports (RFC 8323 §5.1, §11.1); UDP rejects class 7.
    /** 7.01 Capabilities and Settings Message (RFC 8323 §5.3). */
    public static final Code CSM = define(7, 1, "CSM");
    /** 7.02 Ping (RFC 8323 §5.4). */
    public static final Code PING = define(7, 2, "Ping");
    /** 7.03 Pong (RFC 8323 §5.4). */
    public static final Code PONG = define(7, 3, "Pong");
    /** 7.04 Release (RFC 8323 §5.5). */
    public static final Code RELEASE = define(7, 4, "Release");
    /** 7.05 Abort (RFC 8323 §5.6). */
    public static final Code ABORT = define(7, 5, "Abort");

    static {
        for (int v = 0; v < ALL.length; v++) {
            if (ALL[v] == null) {
                ALL[v] = new Code(v, null);
            }
        }
    }

    /** The code for the 8-bit wire value; the registered constant when there is one. */
    public static Code valueOf(int value) {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException("code must be 0..255, got " + value);
        }
        return ALL[value];
    }

    /** The code {@code cls.detail}, e.g. {@code of(4, 4)} is 4.04 Not Found. */
    public static Code of(int cls, int detail) {
        if (cls < 0 || cls > 7 || detail < 0 || detail > 31) {
            throw new IllegalArgumentException("code class must be 0..7 and detail 0..31, got "
                    + cls + "." + detail);
        }
        return ALL[cls << 5 | detail];
    }

    /** The 8-bit wire value. */
    public int value() {
        return value;
    }

    /** The class: the 3 high bits (0 request/empty, 2 success, 4 client error, 5 server error). */
    public int codeClass() {
        return value >>> 5;
    }

    /** The detail: the 5 low bits. */
    public int detail() {
        return value & 0x1F;
    }

    /** The registered name ("Content", "GET"), or {@code null} for an unregistered code. */
    public String name() {
        return name;
    }

    /** Whether this is 0.00 (RFC 7252 §4.1). */
    public boolean isEmpty() {
        return value == 0;
    }

    /** Whether this is a method code: class 0, detail 1..31 (RFC 7252 §5.8). */
    public boolean isRequest() {
        return value >= 1 && value <= 31;
    }

    /**
     * Whether this is a response code: class 2..5, the range of the response code sub-registry
     * (RFC 7252 §12.1.2). Classes 1, 6 and 7 are reserved; a message using them is rejected
     * (RFC 7252 §4.2), except class 7 over reliable transports ({@link #isSignaling()}).
     */
    public boolean isResponse() {
        int c = codeClass();
        return c >= 2 && c <= 5;
    }

    /**
     * Whether this is a signaling code, class 7 (RFC 8323 §5.1): used over TCP, TLS and
     * WebSockets only; over UDP class 7 is reserved and rejected like classes 1 and 6.
     */
    public boolean isSignaling() {
        return codeClass() == 7;
    }

    /** Whether this is a 2.xx code. */
    public boolean isSuccess() {
        return codeClass() == 2;
    }

    /** Whether this is a 4.xx or 5.xx code. */
    public boolean isError() {
        int c = codeClass();
        return c == 4 || c == 5;
    }

    @Override
    public boolean equals(Object o) {
        // one instance per value
        return this == o;
    }

    @Override
    public int hashCode() {
        return value;
    }

    /** {@code "2.05 Content"}, or just {@code "2.31"}-style digits for an unregistered code. */
    @Override
    public String toString() {
        return text;
    }

    /** Just the {@code c.dd} digits, as written in the test vectors. */
    public String toDigits() {
        return text.substring(0, 4);
    }
}
