package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;

/**
 * Jazzer target for the handshake fragment header (RFC 6347 §4.2.2) and the PSK identity read
 * from a ClientKeyExchange (RFC 4279 §2), on any bytes and any bounds: the first two input bytes
 * pick the offset and how much of the end to cut off, the rest is the buffer. The announced
 * message length is what the connector screens (a message over 32 KiB is dropped before
 * BouncyCastle would allocate it), so it must be read exactly.
 *
 * <p>Contract: {@link HandshakeFragment#parse} returns or throws
 * {@link MalformedRecordException}; a parsed fragment lies inside the bounds, inside its message,
 * and its identity inside the fragment. Seeds in {@code HandshakeFragmentFuzzTestInputs/fragments/}.
 */
class HandshakeFragmentFuzzTest {

    private final HandshakeFragment fragment = new HandshakeFragment();

    @FuzzTest(maxDuration = "60s")
    void fragments(byte[] input) {
        if (input.length < 2) {
            return;
        }
        byte[] b = Arrays.copyOfRange(input, 2, input.length);
        int off = b.length == 0 ? 0 : (input[0] & 0xFF) % (b.length + 1);
        int end = Math.max(off, b.length - (input[1] & 0xFF) % 4);
        try {
            fragment.parse(b, off, end);
        } catch (MalformedRecordException refused) {
            return;
        }
        assertTrue(fragment.bodyOffset() == off + HandshakeFragment.HEADER_LENGTH && fragment.end() <= end);
        assertTrue(fragment.messageLength() == (((b[off + 1] & 0xFF) << 16) | ((b[off + 2] & 0xFF) << 8)
                | (b[off + 3] & 0xFF)), "the announced length is read as sent");
        assertTrue(fragment.fragmentOffset() + (long) fragment.fragmentLength() <= fragment.messageLength());
        byte[] identity = fragment.pskIdentity(b);
        if (identity != null) {
            int n = ((b[fragment.bodyOffset()] & 0xFF) << 8) | (b[fragment.bodyOffset() + 1] & 0xFF);
            assertTrue(fragment.type() == HandshakeFragment.CLIENT_KEY_EXCHANGE && fragment.fragmentOffset() == 0);
            assertArrayEquals(Arrays.copyOfRange(b, fragment.bodyOffset() + 2, fragment.bodyOffset() + 2 + n), identity);
            assertTrue(fragment.bodyOffset() + 2 + n <= fragment.end());
        }
    }
}
