package io.stagecoach.core.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.codec.MessageFormatException.Verdict;
import io.stagecoach.core.testutil.Mutations;
import io.stagecoach.core.testutil.ReliableTestVectors;
import io.stagecoach.core.testutil.TestVectors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Property test over 1,000,000 deterministic inputs, in both framings: random byte arrays and
 * mutations of the shared RFC 8323 vectors (bit flips, truncation, insertion, random overwrite,
 * and for TCP a re-fitted length field so that mutated bodies get past the length check).
 * Parsing throws nothing but {@link MessageFormatException}, always with a verdict of ABORT or
 * IGNORE; whatever parses re-encodes to the same bytes and re-parses to an equal message. Every
 * fourth input also goes through {@link TcpFrameSplitter} in random chunks, which throws nothing
 * but an abort and returns frames that are exactly the bytes it consumed.
 */
class TcpCodecFuzzTest {

    private static final int ITERATIONS = 1_000_000;
    private static final long SEED = 0x8323_C0A9L;
    private static final int MAX = 2048;

    private final TcpMessageParser tcpParser = new TcpMessageParser(ReliableFraming.TCP, MAX);
    private final TcpMessageParser wsParser = new TcpMessageParser(ReliableFraming.WEBSOCKET, MAX);
    private final TcpMessageSerializer tcpSerializer = new TcpMessageSerializer(ReliableFraming.TCP);
    private final TcpMessageSerializer wsSerializer = new TcpMessageSerializer(ReliableFraming.WEBSOCKET);
    private int parsed;
    private int refused;

    @Test
    void parserAndSplitterNeverCrashAndRoundTrip() {
        List<byte[]> tcpSeeds = new ArrayList<>();
        List<byte[]> wsSeeds = new ArrayList<>();
        for (ReliableTestVectors.Vector v : ReliableTestVectors.all()) {
            if (v.wire.length <= MAX) {
                (v.framing.equals("tcp") ? tcpSeeds : wsSeeds).add(v.wire);
            }
        }
        SplittableRandom rnd = new SplittableRandom(SEED);
        for (int i = 0; i < ITERATIONS; i++) {
            boolean tcp = rnd.nextBoolean();
            byte[] input = nextInput(rnd, tcp ? tcpSeeds : wsSeeds, tcp);
            check(tcp ? tcpParser : wsParser, tcp ? tcpSerializer : wsSerializer, input);
            if ((i & 3) == 0) {
                split(rnd, input);
            }
        }
        // both outcomes must be exercised, else the generator is broken
        assertTrue(parsed > 50_000, "parsed " + parsed);
        assertTrue(refused > 50_000, "refused " + refused);
    }

    private void check(TcpMessageParser parser, TcpMessageSerializer serializer, byte[] input) {
        try {
            if (parser.isSignaling(input)) {
                SignalingMessage s = parser.parseSignal(input);
                byte[] again = serializer.serialize(s);
                assertArrayEquals(input, again, () -> "re-encoding of signal " + TestVectors.hex(input));
                assertEquals(s, parser.parseSignal(again), () -> "re-parse of " + TestVectors.hex(input));
            } else {
                Message m = parser.parseMessage(input);
                byte[] again = serializer.serialize(m);
                assertArrayEquals(input, again, () -> "re-encoding of " + TestVectors.hex(input));
                assertEquals(m, parser.parseMessage(again), () -> "re-parse of " + TestVectors.hex(input));
                assertEquals(m, parser.parseMessageShared(input.clone(), null, 0), () -> "shared parse of " + TestVectors.hex(input));
            }
            parsed++;
        } catch (MessageFormatException e) {
            refused++;
            if (e.verdict() != Verdict.ABORT && e.verdict() != Verdict.IGNORE || e.reason().isBlank()) {
                fail(TestVectors.hex(input) + ": " + e);
            }
        } catch (RuntimeException e) {
            fail(parser.framing() + " parse of " + TestVectors.hex(input) + " threw " + e, e);
        }
    }

    private void split(SplittableRandom rnd, byte[] stream) {
        TcpFrameSplitter splitter = new TcpFrameSplitter(64);
        int off = 0;
        int framed = 0;
        try {
            while (off < stream.length) {
                int n = 1 + rnd.nextInt(Math.min(stream.length - off, 9));
                int end = off + n;
                while (off < end) {
                    byte[] frame = splitter.next(stream, off, end - off);
                    off += splitter.consumed();
                    if (frame != null) {
                        assertArrayEquals(Arrays.copyOfRange(stream, framed, off), frame, "frame bytes");
                        assertTrue(frame.length <= 64, "frame within the limit");
                        framed = off;
                        check(tcpParser, tcpSerializer, frame);
                    }
                }
            }
            assertEquals(stream.length - framed, splitter.buffered(), "bytes held after the last frame");
        } catch (MessageFormatException e) {
            assertEquals(Verdict.ABORT, e.verdict(), e::toString);
        } catch (RuntimeException e) {
            fail("splitting " + TestVectors.hex(stream) + " threw " + e, e);
        }
    }

    private static byte[] nextInput(SplittableRandom rnd, List<byte[]> seeds, boolean tcp) {
        if (rnd.nextInt(5) == 0) {
            byte[] b = new byte[rnd.nextInt(65)];
            rnd.nextBytes(b);
            return tcp && rnd.nextBoolean() ? refit(b) : b;
        }
        byte[] b = Mutations.mutate(rnd, seeds.get(rnd.nextInt(seeds.size())));
        return tcp && rnd.nextInt(3) > 0 ? refit(b) : b;
    }

    /**
     * Rewrites the TCP length field to what follows the token, with the shortest encoding, so that
     * a mutated body is judged on its options and payload; inputs too short for that stay as
     * they are.
     */
    static byte[] refit(byte[] b) {
        if (b.length < 2) {
            return b;
        }
        int nibble = (b[0] & 0xFF) >>> 4;
        int tkl = b[0] & 0x0F;
        int headerEnd = 1 + LengthField.extraBytes(nibble) + 1; // after the code
        if (b.length < headerEnd || tkl > 8 || b.length < headerEnd + tkl) {
            return b;
        }
        int body = b.length - headerEnd - tkl;
        int newNibble = LengthField.nibble(body);
        byte[] out = new byte[1 + LengthField.extraBytes(newNibble) + 1 + tkl + body];
        out[0] = (byte) (newNibble << 4 | tkl);
        int pos = LengthField.writeExtended(out, 1, newNibble, body);
        System.arraycopy(b, headerEnd - 1, out, pos, 1 + tkl + body);
        return out;
    }
}
