package io.stagecoach.core.codec;

import io.stagecoach.core.codec.MessageFormatException.Verdict;
import java.nio.ByteBuffer;

/**
 * Cuts the byte stream of one CoAP-over-TCP/TLS connection into frames (RFC 8323 §3.2), however
 * the stream arrives in chunks: a frame split over many chunks, several frames in one chunk, the
 * extended length field itself split. One instance per connection and direction; not
 * thread-safe.
 *
 * <pre>{@code
 * while (off < end) {
 *     byte[] frame = splitter.next(chunk, off, end - off);
 *     off += splitter.consumed();
 *     if (frame != null) {
 *         // parser.isSignaling(frame) ? parser.parseSignal(frame) : parser.parseMessageShared(frame, peer, now)
 *     }
 * }
 * }</pre>
 *
 * <p><b>Bounded memory.</b> {@link #next} consumes input only up to the end of the frame it is
 * assembling, and a frame's buffer is allocated only when its header has announced the length:
 * a frame longer than the maximum message size (whole frame, as Max-Message-Size counts it,
 * §5.3.1) is refused with an {@linkplain Verdict#ABORT abort} {@link MessageFormatException}
 * before a byte of its body is buffered. So an instance holds at most the maximum message size
 * plus 5 header bytes. After a refusal the connection is to be aborted, and every later call
 * throws the same exception.
 *
 * <p>The splitter reads only the length fields; everything else (TKL, code, options) is the
 * parser's to check. WebSockets need no splitter: each WebSocket message is one frame (§4.2).
 */
public final class TcpFrameSplitter {

    /** First byte and up to 4 extended length bytes (Len 15). */
    private static final int MAX_LENGTH_FIELD = 5;

    private final int maxMessageSize;
    private final byte[] head = new byte[MAX_LENGTH_FIELD];
    private int headBytes;
    private byte[] frame;
    private int frameBytes;
    private int consumed;
    private MessageFormatException failure;

    /** @param maxMessageSize largest frame accepted, header included (see the class comment); at least 2 */
    public TcpFrameSplitter(int maxMessageSize) {
        if (maxMessageSize < 2) {
            throw new IllegalArgumentException("max message size must be at least 2 bytes, got " + maxMessageSize);
        }
        this.maxMessageSize = maxMessageSize;
    }

    public int maxMessageSize() {
        return maxMessageSize;
    }

    /**
     * Consumes bytes of {@code src[off..off+len)} until a frame is complete or the bytes run out;
     * {@link #consumed()} then tells how many it took.
     *
     * @return the completed frame, handed over to the caller (the splitter keeps no reference),
     *     or {@code null} when more bytes are needed
     * @throws MessageFormatException (verdict {@link Verdict#ABORT}) when a frame announces more
     *     than the maximum message size, now or in an earlier call
     * @throws IndexOutOfBoundsException if the range lies outside {@code src} (a caller's bug, not
     *     the peer's)
     */
    public byte[] next(byte[] src, int off, int len) throws MessageFormatException {
        if (off < 0 || len < 0 || off > src.length - len) {
            throw new IndexOutOfBoundsException("range " + off + "+" + len + " outside " + src.length + " bytes");
        }
        consumed = 0;
        if (failure != null) {
            throw failure;
        }
        int pos = off;
        int end = off + len;
        while (frame == null && pos < end) {
            head[headBytes++] = src[pos++];
            consumed = pos - off;
            startFrameIfLengthKnown();
        }
        if (frame != null) {
            int n = Math.min(end - pos, frame.length - frameBytes);
            System.arraycopy(src, pos, frame, frameBytes, n);
            frameBytes += n;
            pos += n;
        }
        consumed = pos - off;
        return takeIfComplete();
    }

    /**
     * As {@link #next(byte[], int, int)} for the remaining bytes of {@code src}, whose position
     * advances by the bytes consumed.
     */
    public byte[] next(ByteBuffer src) throws MessageFormatException {
        consumed = 0;
        if (failure != null) {
            throw failure;
        }
        int start = src.position();
        while (frame == null && src.hasRemaining()) {
            head[headBytes++] = src.get();
            consumed = src.position() - start;
            startFrameIfLengthKnown();
        }
        if (frame != null) {
            int n = Math.min(src.remaining(), frame.length - frameBytes);
            src.get(frame, frameBytes, n);
            frameBytes += n;
        }
        consumed = src.position() - start;
        return takeIfComplete();
    }

    /** Bytes the last {@link #next} call consumed (also when it threw, the bytes read before). */
    public int consumed() {
        return consumed;
    }

    /**
     * Bytes still needed to complete the current frame: exact once the length field is complete,
     * a lower bound before (2 between frames, the smallest frame being a header byte and a code);
     * 0 after a refusal.
     */
    public int bytesNeeded() {
        if (failure != null) {
            return 0;
        }
        if (frame != null) {
            return frame.length - frameBytes;
        }
        if (headBytes == 0) {
            return 2;
        }
        // only Len 13..15 keeps the header open: their extended bytes, the code, the token and
        // at least the smallest length the nibble stands for are still to come
        int nibble = (head[0] & 0xFF) >>> 4;
        return 1 + LengthField.extraBytes(nibble) - headBytes + 1 + (head[0] & 0x0F) + LengthField.offset(nibble);
    }

    /** Bytes of the current, incomplete frame held so far. */
    public int buffered() {
        return frame != null ? frameBytes : headBytes;
    }

    /** Whether no frame is in progress: a stream that ends here ends cleanly. */
    public boolean isIdle() {
        return failure == null && frame == null && headBytes == 0;
    }

    private void startFrameIfLengthKnown() throws MessageFormatException {
        int nibble = (head[0] & 0xFF) >>> 4;
        int lengthField = 1 + LengthField.extraBytes(nibble);
        if (headBytes < lengthField) {
            return;
        }
        long size = lengthField + 1L + (head[0] & 0x0F) + LengthField.read(nibble, head, 1);
        if (size > maxMessageSize) {
            failure = new MessageFormatException("frame of " + size + " bytes announced, more than the maximum"
                    + " message size " + maxMessageSize + " (RFC 8323 5.3.1)", Verdict.ABORT, null, null, -1);
            throw failure;
        }
        frame = new byte[(int) size];
        System.arraycopy(head, 0, frame, 0, headBytes);
        frameBytes = headBytes;
    }

    private byte[] takeIfComplete() {
        if (frame == null || frameBytes < frame.length) {
            return null;
        }
        byte[] done = frame;
        frame = null;
        frameBytes = 0;
        headBytes = 0;
        return done;
    }
}
