package io.stagecoach.elements;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A {@link Connector} that forwards every call to another one; subclasses override what they
 * observe or change (taps in simulations, fault injection), in the manner of Guava's forwarding
 * collections.
 */
public abstract class ForwardingConnector implements Connector {

    private final Connector delegate;

    protected ForwardingConnector(Connector delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The connector every call goes to. */
    protected final Connector delegate() {
        return delegate;
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
    public void setRawDataReceiver(RawDataReceiver receiver) {
        delegate.setRawDataReceiver(receiver);
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
    public EndpointContext currentContext(EndpointContext context) {
        return delegate.currentContext(context);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
