package io.stagecoach.bench.jmh;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A connector without a network for microbenchmarks: {@link #deliver} hands a datagram straight
 * to the endpoint on the calling thread ({@link #lend} lends it, as the UDP connectors do), and {@link #send} keeps the last datagram the endpoint
 * sent; one sent from a buffer is copied into an array of its own, reused, the way a socket copies
 * it into the kernel. With an inline protocol stage one {@code deliver} runs the whole server path
 * synchronously: no socket, no scheduler hop, no thread. Not thread-safe; one benchmark thread.
 */
final class DirectConnector implements Connector {

    private final InetSocketAddress address;
    private final ConnectorCounters counters = new ConnectorCounters();
    private RawDataReceiver receiver;
    private RawData lastSent;
    private final byte[] sentBytes = new byte[2048];
    private int sentLength = -1;
    private EndpointContext sentTo;

    DirectConnector(InetSocketAddress address) {
        this.address = Objects.requireNonNull(address, "address");
    }

    /** Passes {@code data} to the endpoint as if it had just arrived. */
    void deliver(RawData data) {
        receiver.receiveData(data);
    }

    /**
     * Lends {@code length} bytes of {@code buffer} to the endpoint as if they had just arrived, the
     * way the UDP connectors deliver ({@link RawDataReceiver#receiveDatagram}): the caller may
     * reuse the buffer once this returns.
     */
    void lend(byte[] buffer, int length, EndpointContext sender, long nanos) {
        receiver.receiveDatagram(buffer, 0, length, sender, nanos);
    }

    /** The datagram the endpoint sent last, or {@code null}. */
    RawData lastSent() {
        return sentLength >= 0 ? RawData.outbound(Arrays.copyOf(sentBytes, sentLength), sentTo, null) : lastSent;
    }

    /** Size of the datagram the endpoint sent last; no allocation. */
    int lastSentSize() {
        return sentLength >= 0 ? sentLength : lastSent.size();
    }

    @Override
    public void start() {
        if (receiver == null) {
            throw new IllegalStateException("set a receiver before start()");
        }
    }

    @Override
    public void stop() {
    }

    @Override
    public void destroy() {
    }

    @Override
    public void send(RawData data) {
        lastSent = data;
        sentLength = -1;
        data.notifySent();
    }

    @Override
    public void send(ByteBuffer datagram, EndpointContext destination) {
        sentLength = datagram.remaining();
        datagram.get(sentBytes, 0, sentLength);
        sentTo = destination;
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    @Override
    public InetSocketAddress getAddress() {
        return address;
    }

    @Override
    public String getProtocol() {
        return "UDP";
    }

    @Override
    public ConnectorCounters counters() {
        return counters;
    }
}
