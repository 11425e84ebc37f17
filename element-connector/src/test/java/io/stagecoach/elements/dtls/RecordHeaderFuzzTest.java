package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The record and handshake-fragment parsers on a million seeded random and mutated inputs: they
 * return or throw {@link MalformedRecordException}, nothing else, and what they return stays
 * inside the buffer. (A coverage-guided Jazzer target like core's should be added later.)
 */
class RecordHeaderFuzzTest {

    private static byte[] validRecord(SplittableRandom r, int cidLength) {
        boolean cid = cidLength > 0 && r.nextBoolean();
        int len = r.nextInt(0, 60);
        byte[] b = new byte[13 + (cid ? cidLength : 0) + len];
        b[0] = (byte) (cid ? 25 : 20 + r.nextInt(5));
        b[1] = (byte) 254;
        b[2] = (byte) (r.nextBoolean() ? 253 : 255);
        b[4] = (byte) (cid ? 1 : r.nextInt(3));
        int lo = b.length - len - 2;
        b[lo] = (byte) (len >> 8);
        b[lo + 1] = (byte) len;
        if (len == 0 && !cid) {
            b[0] = 23;
        }
        return b;
    }

    @Test
    void millionInputsNeverThrowAnythingElse() {
        SplittableRandom r = new SplittableRandom(0x5EEDL);
        RecordHeader h = new RecordHeader();
        HandshakeFragment f = new HandshakeFragment();
        int parsed = 0;
        for (int i = 0; i < 1_000_000; i++) {
            int cidLength = r.nextInt(0, 3) * 4;
            byte[] b;
            if (i % 2 == 0) {
                b = new byte[r.nextInt(0, 80)];
                r.nextBytes(b);
            } else {
                b = validRecord(r, cidLength);
                for (int m = r.nextInt(0, 4); m > 0 && b.length > 0; m--) {
                    b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                }
            }
            int off = b.length == 0 ? 0 : r.nextInt(0, Math.min(3, b.length) + 1);
            try {
                h.parse(b, off, b.length, cidLength);
                parsed++;
                assertTrue(h.end() <= b.length && h.fragmentOffset() >= off);
                int fo = h.fragmentOffset();
                while (fo < h.end()) {
                    f.parse(b, fo, h.end());
                    assertTrue(f.end() <= h.end() && f.end() > fo);
                    f.pskIdentity(b);
                    fo = f.end();
                }
            } catch (MalformedRecordException expected) {
                // the one allowed outcome besides success
            }
        }
        assertTrue(parsed > 100_000, "the generator reaches the success path: " + parsed);
    }

    @Test
    void readsACidRecord() throws MalformedRecordException {
        byte[] b = {25, (byte) 254, (byte) 253, 0, 1, 0, 0, 0, 0, 0, 9, 7, 7, 7, 7, 0, 2, 42, 43};
        RecordHeader h = new RecordHeader().parse(b, 0, b.length, 4);
        assertEquals(25, h.contentType());
        assertEquals(1, h.epoch());
        assertEquals(9, h.sequence());
        assertEquals(11, h.cidOffset());
        assertEquals(2, h.fragmentLength());
        assertEquals(b.length, h.end());
        assertThrows(MalformedRecordException.class, () -> new RecordHeader().parse(b, 0, b.length, 0));
        assertThrows(MalformedRecordException.class, () -> new RecordHeader().parse(b, 0, b.length - 1, 4));
    }

    @Test
    void refusesAFragmentBeyondItsMessage() {
        byte[] frag = {16, 0, 0, 4, 0, 0, 0, 0, 3, 0, 0, 2, 0, 1};
        assertThrows(MalformedRecordException.class, () -> new HandshakeFragment().parse(frag, 0, frag.length));
    }
}
