package io.stagecoach.core.dtls;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A datagram connector that a test moves to a new address, as a NAT rebinding or a roaming client
 * does: {@link #move()} opens the next connector the supplier makes, closes the current one, and
 * tells nobody above. Put under a DTLS client connector with {@code transport(c -> movable)}.
 */
final class MovableConnector implements Connector {

    private final Supplier<Connector> next;
    private volatile Connector current;
    private volatile RawDataReceiver receiver = d -> { };

    MovableConnector(Supplier<Connector> next) {
        this.next = Objects.requireNonNull(next, "next");
        this.current = next.get();
    }

    /** Continues on a fresh connector (a new address); the old one is destroyed. */
    void move() throws IOException {
        Connector old = current;
        Connector moved = next.get();
        moved.setRawDataReceiver(receiver);
        moved.start();
        current = moved;
        old.destroy();
    }

    @Override
    public void start() throws IOException {
        current.start();
    }

    @Override
    public void stop() {
        current.stop();
    }

    @Override
    public void destroy() {
        current.destroy();
    }

    @Override
    public void send(RawData data) {
        current.send(data);
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver r) {
        receiver = r;
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
}
