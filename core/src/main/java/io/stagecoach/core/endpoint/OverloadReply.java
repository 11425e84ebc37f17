package io.stagecoach.core.endpoint;

/**
 * The answer to a CON request that the protocol stage has no room for: a 5.03 Service Unavailable
 * ACK with Max-Age, built from the datagram's fixed header and token alone, on the receive thread.
 *
 * <p>Decoding the whole message would be the work the full queue could not take; the 4-byte header
 * and the token are enough to answer (RFC 7252 §3, §5.9.3.4). Anything that is not a CON request
 * with a well-formed header gets {@code null}: it is dropped and counted.
 */
final class OverloadReply {

    private static final int SERVICE_UNAVAILABLE = (5 << 5) | 3;
    private static final int MAX_AGE = 14;

    private OverloadReply() {
    }

    /** The encoded 5.03 ACK for {@code datagram}, or {@code null} when it is not a CON request. */
    static byte[] serviceUnavailable(byte[] datagram, int length, long maxAgeSeconds) {
        if (length < 4) {
            return null;
        }
        int first = datagram[0] & 0xFF;
        int version = first >>> 6;
        int type = (first >>> 4) & 0x3;
        int tkl = first & 0xF;
        int code = datagram[1] & 0xFF;
        boolean request = (code >>> 5) == 0 && (code & 0x1F) != 0;
        if (version != 1 || type != 0 || !request || tkl > 8 || length < 4 + tkl) {
            return null;
        }
        byte[] maxAge = uint(maxAgeSeconds);
        byte[] reply = new byte[4 + tkl + 2 + maxAge.length];
        reply[0] = (byte) (0x60 | tkl); // version 1, ACK, same TKL
        reply[1] = (byte) SERVICE_UNAVAILABLE;
        reply[2] = datagram[2];
        reply[3] = datagram[3];
        System.arraycopy(datagram, 4, reply, 4, tkl);
        // Max-Age is option 14: a delta of 13 or more is nibble 13 plus one byte holding delta - 13 (§3.1).
        reply[4 + tkl] = (byte) ((13 << 4) | maxAge.length);
        reply[5 + tkl] = (byte) (MAX_AGE - 13);
        System.arraycopy(maxAge, 0, reply, 6 + tkl, maxAge.length);
        return reply;
    }

    private static byte[] uint(long value) {
        int n = value == 0 ? 0 : (64 - Long.numberOfLeadingZeros(value) + 7) / 8;
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[n - 1 - i] = (byte) (value >>> (8 * i));
        }
        return b;
    }
}
