package io.stagecoach.core.network.faults;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Delegates everything to a connector but wraps the receiver it is given: at the
 * {@link FaultKind#RECEIVER_DIES} rate the receiver throws {@link InjectedError} instead of
 * taking the datagram, which ends the connector's receive thread (the datagram is lost, and a CON
 * sender retransmits, RFC 7252 §4.2).
 */
final class FaultyConnector implements Connector {
    private final FaultInjector faults;
    private final Connector delegate;

    FaultyConnector(FaultInjector faults, Connector delegate) {
        this.faults = faults;
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        delegate.setRawDataReceiver(data -> {
            if (faults.inject(FaultKind.RECEIVER_DIES)) {
                throw new InjectedError();
            }
            receiver.receiveData(data);
        });
    }

    @Override
    public void start() throws IOException {
        delegate.start();
    }

    @Override
    public void stop() {
        delegate.stop();
    }

    @Override
    public void destroy() {
        delegate.destroy();
    }

    @Override
    public void send(RawData data) {
        delegate.send(data);
    }

    @Override
    public InetSocketAddress getAddress() {
        return delegate.getAddress();
    }

    @Override
    public String getProtocol() {
        return delegate.getProtocol();
    }

    @Override
    public ConnectorCounters counters() {
        return delegate.counters();
    }

    @Override
    public String toString() {
        return "Faulty" + delegate;
    }
}
