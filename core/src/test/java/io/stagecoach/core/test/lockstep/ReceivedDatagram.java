package io.stagecoach.core.test.lockstep;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;

/**
 * One datagram a {@link LockstepPeer} received: the raw bytes exactly as they arrived, the
 * sender, and the virtual-clock reading at delivery. Parsed lazily with the real
 * {@link UdpMessageParser}, so a test can assert on malformed input as well as on messages.
 */
public final class ReceivedDatagram {

    private static final UdpMessageParser PARSER = new UdpMessageParser();

    private final int index;
    private final byte[] bytes;
    private final InetSocketAddress source;
    private final long receiveNanos;
    private final long originNanos;
    private Message message;
    private MessageFormatException formatError;
    private boolean parsed;

    ReceivedDatagram(int index, byte[] bytes, InetSocketAddress source, long receiveNanos, long originNanos) {
        this.index = index;
        this.bytes = bytes;
        this.source = source;
        this.receiveNanos = receiveNanos;
        this.originNanos = originNanos;
    }

    /** Position in the peer's reception order, starting at 1. */
    public int index() {
        return index;
    }

    /** A copy of the datagram's bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    public InetSocketAddress source() {
        return source;
    }

    /** Virtual-clock reading when the network delivered the datagram. */
    public long receiveNanos() {
        return receiveNanos;
    }

    /** Time from the peer's time origin (attach or {@link LockstepPeer#markTime()}) to reception. */
    public Duration elapsed() {
        return Duration.ofNanos(receiveNanos - originNanos);
    }

    /** Whether the parser refused the datagram. */
    public boolean isMalformed() {
        parse();
        return formatError != null;
    }

    /** The parser's complaint, or {@code null} for a well-formed message. */
    public MessageFormatException formatError() {
        parse();
        return formatError;
    }

    /**
     * The parsed message.
     *
     * @throws AssertionError "malformed: reason" with the bytes, if the parser refused it
     */
    public Message message() {
        parse();
        if (formatError != null) {
            throw new AssertionError(malformedText());
        }
        return message;
    }

    String malformedText() {
        return "received #" + index + " " + timeText() + " from " + source + " is malformed: "
                + formatError.reason() + " (bytes " + hex() + ")";
    }

    private void parse() {
        if (!parsed) {
            parsed = true;
            try {
                message = PARSER.parse(bytes, EndpointContext.of(source), receiveNanos);
            } catch (MessageFormatException e) {
                formatError = e;
            }
        }
    }

    String timeText() {
        return "at +" + millis(receiveNanos - originNanos);
    }

    static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3fms", nanos / 1e6);
    }

    /** E.g. {@code #2 at +100.000ms from /10.0.0.1:5683: ACK 2.05 Content mid=4660 token=0a0b}. */
    @Override
    public String toString() {
        parse();
        return "#" + index + " " + timeText() + " from " + source + ": "
                + (formatError != null ? "malformed: " + formatError.reason() + " (bytes " + hex() + ")"
                        : message.toString().replaceFirst(" peer=.*$", "")
                                + (message.payloadLength() > 0 ? " \"" + printable(message.payloadString()) + "\"" : ""));
    }

    private static String printable(String s) {
        String t = s.length() > 40 ? s.substring(0, 40) + "..." : s;
        return t.replaceAll("\\p{Cntrl}", "?");
    }
}
