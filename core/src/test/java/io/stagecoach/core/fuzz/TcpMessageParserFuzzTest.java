package io.stagecoach.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.MessageFormatException.Verdict;
import io.stagecoach.core.codec.ReliableFraming;
import io.stagecoach.core.codec.TcpFrameSplitter;
import io.stagecoach.core.codec.TcpMessageParser;
import io.stagecoach.core.codec.TcpMessageSerializer;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.testutil.TestVectors;
import java.util.Arrays;

/**
 * Jazzer target for the RFC 8323 codec: parser and serializer in both framings, and the frame
 * splitter. One input is used three ways: as one TCP frame, as one WebSocket message, and as a
 * TCP byte stream fed to {@link TcpFrameSplitter} in chunks of 1 to 16 bytes whose sizes the
 * input's own bytes choose. Contract checked: parsing throws nothing but
 * {@link MessageFormatException} (verdict ABORT or IGNORE); whatever parses re-encodes to the same
 * bytes and re-parses to an equal message; the splitter throws nothing but an ABORT and its
 * frames are exactly the bytes it consumed, each within its limit.
 *
 * <p>One {@code @FuzzTest} for all three, because Jazzer fuzzes a single one per JVM
 * ({@code .ci/fuzz}). {@code mvn verify} runs it in regression mode over
 * {@code src/test/resources/io/stagecoach/core/fuzz/TcpMessageParserFuzzTestInputs/parse/}: the
 * shared RFC 8323 vectors and a stream of them (checked by {@link TcpSeedCorpusTest}) plus any
 * crash input Jazzer ever wrote there.
 */
class TcpMessageParserFuzzTest {

    /** Enough for every seed but the 64 KiB vectors, which then test the limit. */
    private static final int MAX = 4096;
    private static final int SPLIT_MAX = 256;

    private final TcpMessageParser tcp = new TcpMessageParser(ReliableFraming.TCP, MAX);
    private final TcpMessageParser ws = new TcpMessageParser(ReliableFraming.WEBSOCKET, MAX);
    private final TcpMessageSerializer tcpOut = new TcpMessageSerializer(ReliableFraming.TCP);
    private final TcpMessageSerializer wsOut = new TcpMessageSerializer(ReliableFraming.WEBSOCKET);

    @FuzzTest(maxDuration = "60s")
    void parse(byte[] input) {
        roundTrip(tcp, tcpOut, input);
        roundTrip(ws, wsOut, input);
        split(input);
    }

    private static void roundTrip(TcpMessageParser parser, TcpMessageSerializer serializer, byte[] frame) {
        try {
            if (parser.isSignaling(frame)) {
                SignalingMessage s = parser.parseSignal(frame);
                byte[] again = serializer.serialize(s);
                assertArrayEquals(frame, again, () -> "re-encoding of " + TestVectors.hex(frame));
                assertEquals(s, parser.parseSignal(again), () -> "re-parse of " + TestVectors.hex(again));
            } else {
                Message m = parser.parseMessage(frame);
                byte[] again = serializer.serialize(m);
                assertArrayEquals(frame, again, () -> "re-encoding of " + TestVectors.hex(frame));
                assertEquals(m, parser.parseMessage(again), () -> "re-parse of " + TestVectors.hex(again));
            }
        } catch (MessageFormatException refused) {
            // the one allowed outcome for bad input, with a verdict a reliable transport can act on
            assertTrue(refused.verdict() == Verdict.ABORT || refused.verdict() == Verdict.IGNORE, refused::toString);
        }
    }

    private void split(byte[] stream) {
        TcpFrameSplitter splitter = new TcpFrameSplitter(SPLIT_MAX);
        int off = 0;
        int framed = 0;
        int k = 0;
        try {
            while (off < stream.length) {
                int end = Math.min(stream.length, off + 1 + (stream[k++ % stream.length] & 0x0F));
                while (off < end) {
                    byte[] frame = splitter.next(stream, off, end - off);
                    off += splitter.consumed();
                    if (frame != null) {
                        assertArrayEquals(Arrays.copyOfRange(stream, framed, off), frame, "frame = consumed bytes");
                        assertTrue(frame.length <= SPLIT_MAX, "frame within the limit");
                        framed = off;
                        roundTrip(tcp, tcpOut, frame);
                    }
                }
            }
            assertEquals(stream.length - framed, splitter.buffered(), "bytes held after the last frame");
        } catch (MessageFormatException refused) {
            assertEquals(Verdict.ABORT, refused.verdict(), refused::toString);
        }
    }
}
