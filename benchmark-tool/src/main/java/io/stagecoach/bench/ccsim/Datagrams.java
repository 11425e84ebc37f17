package io.stagecoach.bench.ccsim;

import java.nio.ByteBuffer;

/** What the taps read from a datagram's fixed header without decoding it (RFC 7252 §3). */
final class Datagrams {

    private Datagrams() {
    }

    /** True for a Confirmable request (Ver/T/TKL, code class 0, detail > 0). */
    static boolean isConRequest(ByteBuffer b) {
        if (b.limit() < 4) {
            return false;
        }
        int code = b.get(1) & 0xFF;
        return ((b.get(0) >> 4) & 0x3) == 0 && code != 0 && (code >> 5) == 0;
    }

    /** The Message ID of a datagram with a valid 4-byte header. */
    static int mid(ByteBuffer b) {
        return ((b.get(2) & 0xFF) << 8) | (b.get(3) & 0xFF);
    }
}
