package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.codec.MessageFormatException.Verdict;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link TcpFrameSplitter}: frames out of a stream however it is chunked, and the size limit. */
class TcpFrameSplitterTest {

    private final TcpMessageSerializer tcp = new TcpMessageSerializer(ReliableFraming.TCP);

    /** CSM (2 bytes), Ping (3), a Len 13 response (16): 21 bytes, so 2^20 ways to chunk them. */
    private List<byte[]> smallFrames() {
        return List.of(tcp.serialize(SignalingMessage.csm(-1, false)),
                tcp.serialize(SignalingMessage.ping(Token.fromHex("42"), false)),
                tcp.serialize(Response.builder(Code.CONTENT).payload(new byte[12]).build()));
    }

    /** One frame per length encoding: Len 0..12, 13 (1 extended byte), 14 (2), 15 (4). */
    private List<byte[]> everyLengthEncoding() {
        List<byte[]> frames = new ArrayList<>();
        for (int payload : new int[] {0, 11, 12, 267, 268, 65803, 65804, 70000}) {
            frames.add(tcp.serialize(Response.builder(Code.CONTENT).token(Token.fromHex("0a0b"))
                    .payload(pattern(payload)).build()));
        }
        return frames;
    }

    @Test
    void everyChunkingOfASmallStream() throws MessageFormatException {
        List<byte[]> frames = smallFrames();
        byte[] stream = concat(frames);
        assertEquals(21, stream.length);
        assertEquals(0xd0, stream[5] & 0xFF, "the third frame has an extended length byte");
        int cuts = stream.length - 1;
        TcpFrameSplitter splitter = new TcpFrameSplitter(1152);
        for (int mask = 0; mask < 1 << cuts; mask++) {
            List<byte[]> out = new ArrayList<>(3);
            int start = 0;
            for (int i = 1; i <= stream.length; i++) {
                if (i == stream.length || (mask & 1 << (i - 1)) != 0) {
                    feed(splitter, stream, start, i - start, out);
                    start = i;
                }
            }
            if (out.size() != 3 || !Arrays.equals(frames.get(0), out.get(0)) || !Arrays.equals(frames.get(1), out.get(1))
                    || !Arrays.equals(frames.get(2), out.get(2))) {
                throw new AssertionError("chunking " + Integer.toBinaryString(mask) + " gave " + out.size() + " frames");
            }
            assertTrue(splitter.isIdle());
        }
    }

    @Test
    void oneByteChunksAndEverySplitPointWithEveryLengthEncoding() throws MessageFormatException {
        List<byte[]> frames = everyLengthEncoding();
        byte[] stream = concat(frames);
        TcpFrameSplitter splitter = new TcpFrameSplitter(1 << 17);
        assertFrames(frames, split(splitter, stream, 1));
        // two chunks, cut anywhere in the first 300 bytes and around every frame boundary
        List<Integer> cuts = new ArrayList<>();
        int boundary = 0;
        for (byte[] f : frames) {
            for (int d = -8; d <= 8; d++) {
                cuts.add(boundary + d);
            }
            boundary += f.length;
        }
        for (int i = 0; i < 300; i++) {
            cuts.add(i);
        }
        for (int cut : cuts) {
            if (cut <= 0 || cut >= stream.length) {
                continue;
            }
            List<byte[]> out = new ArrayList<>();
            feed(splitter, stream, 0, cut, out);
            feed(splitter, stream, cut, stream.length - cut, out);
            assertFrames(frames, out);
        }
    }

    @Test
    void seededRandomChunkingsOfTheLargeStream() throws MessageFormatException {
        List<byte[]> frames = everyLengthEncoding();
        byte[] stream = concat(frames);
        SplittableRandom rnd = new SplittableRandom(0x8323);
        for (int run = 0; run < 200; run++) {
            TcpFrameSplitter splitter = new TcpFrameSplitter(1 << 17);
            List<byte[]> out = new ArrayList<>();
            int off = 0;
            while (off < stream.length) {
                int n = Math.min(stream.length - off, rnd.nextBoolean() ? 1 + rnd.nextInt(8) : 1 + rnd.nextInt(40000));
                feed(splitter, stream, off, n, out);
                off += n;
            }
            assertFrames(frames, out);
        }
    }

    @Test
    void severalFramesInOneChunkComeOutOneCallEach() throws MessageFormatException {
        byte[] stream = concat(smallFrames());
        TcpFrameSplitter splitter = new TcpFrameSplitter(1152);
        assertArrayEquals(hex("00e1"), splitter.next(stream, 0, stream.length));
        assertEquals(2, splitter.consumed());
        assertArrayEquals(hex("01e242"), splitter.next(stream, 2, stream.length - 2));
        assertEquals(3, splitter.consumed());
        assertEquals(16, splitter.next(stream, 5, stream.length - 5).length);
        assertEquals(16, splitter.consumed());
        assertNull(splitter.next(stream, 21, 0));
        assertEquals(0, splitter.consumed());
    }

    @Test
    void byteBufferInputAdvancesItsPosition() throws MessageFormatException {
        List<byte[]> frames = everyLengthEncoding();
        byte[] stream = concat(frames);
        for (int chunk : new int[] {1, 3, 1000, stream.length}) {
            TcpFrameSplitter splitter = new TcpFrameSplitter(1 << 17);
            List<byte[]> out = new ArrayList<>();
            for (int off = 0; off < stream.length; off += chunk) {
                ByteBuffer buf = ByteBuffer.wrap(stream, off, Math.min(chunk, stream.length - off)).slice();
                while (buf.hasRemaining()) {
                    int before = buf.position();
                    byte[] f = splitter.next(buf);
                    assertEquals(buf.position() - before, splitter.consumed());
                    if (f != null) {
                        out.add(f);
                    }
                }
            }
            assertFrames(frames, out);
        }
    }

    @Test
    void bytesNeededIsALowerBoundUntilTheLengthIsKnownThenExact() throws MessageFormatException {
        byte[] frame = tcp.serialize(Response.builder(Code.CONTENT).token(Token.fromHex("01")).payload(new byte[300]).build());
        assertEquals(0xE1, frame[0] & 0xFF, "Len 14");
        TcpFrameSplitter splitter = new TcpFrameSplitter(1152);
        assertEquals(2, splitter.bytesNeeded(), "between frames: the smallest frame");
        assertNull(splitter.next(frame, 0, 1));
        assertEquals(2 + 1 + 1 + 269, splitter.bytesNeeded(), "extended bytes, code, token, at least 269");
        assertNull(splitter.next(frame, 1, 1));
        assertEquals(1 + 1 + 1 + 269, splitter.bytesNeeded());
        assertNull(splitter.next(frame, 2, 1));
        assertEquals(frame.length - 3, splitter.bytesNeeded(), "exact once the length is known");
        assertEquals(3, splitter.buffered());
        assertNull(splitter.next(frame, 3, 100));
        assertEquals(frame.length - 103, splitter.bytesNeeded());
        assertFalse(splitter.isIdle(), "a stream ending here ends inside a frame");
        assertArrayEquals(frame, splitter.next(frame, 103, frame.length - 103));
        assertEquals(2, splitter.bytesNeeded());
        assertEquals(0, splitter.buffered());
        assertTrue(splitter.isIdle());
    }

    @Test
    void oversizedFrameIsRefusedBeforeItsBodyIsBuffered() throws MessageFormatException {
        TcpFrameSplitter splitter = new TcpFrameSplitter(1152);
        byte[] stream = hex("e1ffff45" + "00".repeat(100));
        assertNull(splitter.next(stream, 0, 1));
        assertNull(splitter.next(stream, 1, 1));
        MessageFormatException e = assertThrows(MessageFormatException.class, () -> splitter.next(stream, 2, 102));
        assertEquals(Verdict.ABORT, e.verdict());
        assertEquals("frame of 65809 bytes announced, more than the maximum message size 1152 (RFC 8323 5.3.1)",
                e.reason());
        assertEquals(1, splitter.consumed(), "stopped at the end of the length field");
        assertEquals(3, splitter.buffered(), "only the length field is held");
        assertSame(Code.ABORT, e.abortSignal().code());
        // the connection is to be aborted: every later call refuses the same way
        assertSame(e, assertThrows(MessageFormatException.class, () -> splitter.next(stream, 3, 10)));
        assertSame(e, assertThrows(MessageFormatException.class, () -> splitter.next(ByteBuffer.wrap(stream))));
        assertEquals(0, splitter.bytesNeeded());
        assertFalse(splitter.isIdle());
    }

    @Test
    void limitCountsTheWholeFrame() throws MessageFormatException {
        byte[] frame = tcp.serialize(Response.builder(Code.CONTENT).token(Token.fromHex("01")).payload(new byte[100]).build());
        assertArrayEquals(frame, new TcpFrameSplitter(frame.length).next(frame, 0, frame.length), "exactly the limit");
        TcpFrameSplitter tooSmall = new TcpFrameSplitter(frame.length - 1);
        assertThrows(MessageFormatException.class, () -> tooSmall.next(frame, 0, frame.length));
        byte[] len15 = hex("f1ffffffff45");
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> new TcpFrameSplitter(Integer.MAX_VALUE).next(len15, 0, len15.length));
        assertTrue(e.reason().startsWith("frame of 4295033107 bytes"), e.reason());
    }

    @Test
    void callerErrorsAreNotFormatErrors() {
        TcpFrameSplitter splitter = new TcpFrameSplitter(1152);
        assertThrows(IndexOutOfBoundsException.class, () -> splitter.next(new byte[4], 2, 3));
        assertThrows(IllegalArgumentException.class, () -> new TcpFrameSplitter(1));
    }

    /** Splits and parses: the frames the splitter gives are the ones the parser takes. */
    @Test
    void splitFramesParse() throws MessageFormatException {
        TcpMessageParser parser = new TcpMessageParser(ReliableFraming.TCP, 1152);
        List<byte[]> frames = split(new TcpFrameSplitter(1152), concat(smallFrames()), 4);
        assertEquals(SignalingMessage.csm(-1, false), parser.parseSignal(frames.get(0)));
        assertEquals(SignalingMessage.ping(Token.fromHex("42"), false), parser.parseSignal(frames.get(1)));
        assertEquals(12, parser.parseMessageShared(frames.get(2), null, 0).payloadLength());
    }

    private static List<byte[]> split(TcpFrameSplitter splitter, byte[] stream, int chunk) throws MessageFormatException {
        List<byte[]> out = new ArrayList<>();
        for (int off = 0; off < stream.length; off += chunk) {
            feed(splitter, stream, off, Math.min(chunk, stream.length - off), out);
        }
        return out;
    }

    /** Feeds one chunk completely, collecting frames. */
    private static void feed(TcpFrameSplitter splitter, byte[] src, int off, int len, List<byte[]> out)
            throws MessageFormatException {
        int end = off + len;
        while (off < end) {
            byte[] f = splitter.next(src, off, end - off);
            int used = splitter.consumed();
            if (used == 0) {
                throw new AssertionError("no progress at " + off);
            }
            off += used;
            if (f != null) {
                out.add(f);
            }
        }
    }

    private static void assertFrames(List<byte[]> expected, List<byte[]> actual) {
        assertEquals(expected.size(), actual.size(), "frame count");
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), actual.get(i), "frame " + i);
        }
    }

    static byte[] concat(List<byte[]> frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frames.forEach(out::writeBytes);
        return out.toByteArray();
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }
}
