package io.stagecoach.core.interop;

import static org.junit.jupiter.api.Assertions.fail;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.elements.EndpointContext;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;

/**
 * A plain JDK UDP socket on 127.0.0.1 that speaks CoAP through Stagecoach's codec only
 * ({@link UdpMessageSerializer}, {@link UdpMessageParser}) — no endpoint, no retransmission — so
 * interop tests exercise the wire format against a real peer. Every datagram that arrives is kept
 * as hex for assertion messages.
 */
public final class CodecSocket implements AutoCloseable {

    private final DatagramSocket socket;
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();
    private final UdpMessageParser parser = new UdpMessageParser();
    private final StringBuilder log = new StringBuilder();

    private CodecSocket(DatagramSocket socket) {
        this.socket = socket;
    }

    /** A socket bound to an ephemeral port on the loopback address. */
    public static CodecSocket bindLoopback() throws IOException {
        return new CodecSocket(new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    }

    /** The bound port. */
    public int port() {
        return socket.getLocalPort();
    }

    /** Serializes {@code message} and sends it to {@code destination}. */
    public void send(Message message, InetSocketAddress destination) throws IOException {
        byte[] datagram = serializer.serialize(message);
        log.append("sent to ").append(destination).append(": ").append(HexFormat.of().formatHex(datagram))
                .append('\n');
        socket.send(new DatagramPacket(datagram, datagram.length, destination));
    }

    /**
     * The next message, parsed with its sender as {@link Message#peer()}, or empty if none came
     * within {@code timeout}. A datagram the parser rejects fails the test, with its bytes.
     */
    public Optional<Message> receive(Duration timeout) throws IOException {
        byte[] buf = new byte[2048];
        DatagramPacket packet = new DatagramPacket(buf, buf.length);
        socket.setSoTimeout(Math.max(1, (int) timeout.toMillis()));
        try {
            socket.receive(packet);
        } catch (SocketTimeoutException none) {
            return Optional.empty();
        }
        String hex = HexFormat.of().formatHex(buf, 0, packet.getLength());
        log.append("received from ").append(packet.getSocketAddress()).append(": ").append(hex).append('\n');
        EndpointContext from = EndpointContext.of((InetSocketAddress) packet.getSocketAddress());
        try {
            return Optional.of(parser.parse(buf, 0, packet.getLength(), from, System.nanoTime()));
        } catch (MessageFormatException e) {
            return fail("our parser rejected a datagram from " + from + " (" + hex + "): " + e.getMessage());
        }
    }

    /** As {@link #receive(Duration)}, failing the test with the datagram log if nothing came. */
    public Message expect(Duration timeout, String whatFor) throws IOException {
        return receive(timeout).orElseGet(() -> fail("no reply within " + timeout + " " + whatFor + "\n" + log()));
    }

    /** Every datagram sent and received so far, as hex, one a line. */
    public String log() {
        return log.toString();
    }

    @Override
    public void close() {
        socket.close();
    }
}
