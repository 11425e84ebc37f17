package io.stagecoach.elements;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A datagram connector that moves to a new local address on demand, as a cellular NAT does when
 * its binding times out: {@link #rebind()} continues on a fresh connector from the factory and
 * tells nothing above. It sits under {@code ./stagecoach client --rebind}, and under a DTLS client
 * ({@code DtlsConnectorConfig.Builder.transport}) to test Connection IDs. A DTLS session on top keeps its keys and its Connection ID (RFC 9146 §6:
 * the server finds it by the ID, not the address); plain CoAP simply arrives from a new port.
 *
 * <p>The new connector is started before the old one is destroyed, so the OS cannot hand out the
 * same port again, and the counters are those of the current connector.
 */
public final class RebindingConnector implements Connector {

    private final Supplier<Connector> factory;
    private volatile Connector current;
    private volatile RawDataReceiver receiver = d -> { };
    private volatile boolean running;

    /** @param factory makes an unstarted connector on an ephemeral port, once now and once per rebind */
    public RebindingConnector(Supplier<Connector> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.current = factory.get();
    }

    /**
     * Continues on a new connector: binds it, then destroys the current one. Datagrams in flight to
     * the old port are lost, as they are behind a NAT that rebinds.
     *
     * @return the new local address
     * @throws IOException when the new connector cannot bind (the old one then stays)
     */
    public synchronized InetSocketAddress rebind() throws IOException {
        Connector moved = factory.get();
        moved.setRawDataReceiver(receiver);
        if (running) {
            moved.start();
        }
        Connector old = current;
        current = moved;
        old.destroy();
        return moved.getAddress();
    }

    @Override
    public synchronized void start() throws IOException {
        current.start();
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        current.stop();
    }

    @Override
    public synchronized void destroy() {
        running = false;
        current.destroy();
    }

    @Override
    public void send(RawData data) {
        current.send(data);
    }

    @Override
    public void send(ByteBuffer datagram, EndpointContext destination) {
        current.send(datagram, destination);
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver r) {
        receiver = Objects.requireNonNull(r, "receiver");
        current.setRawDataReceiver(r);
    }

    @Override
    public InetSocketAddress getAddress() {
        return current.getAddress();
    }

    @Override
    public String getProtocol() {
        return current.getProtocol();
    }

    @Override
    public ConnectorCounters counters() {
        return current.counters();
    }

    @Override
    public String toString() {
        return "RebindingConnector[" + current + "]";
    }
}
