package io.stagecoach.bench.ccsim;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;

/** A {@link Connector} that forwards everything to another; subclasses observe traffic. */
abstract class ForwardingConnector implements Connector {

    final Connector delegate;

    ForwardingConnector(Connector delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
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

    /** True for a Confirmable request (RFC 7252 §3: Ver/T/TKL, code class 0, detail > 0). */
    static boolean isConRequest(ByteBuffer b) {
        if (b.limit() < 4) {
            return false;
        }
        int code = b.get(1) & 0xFF;
        return ((b.get(0) >> 4) & 0x3) == 0 && code != 0 && (code >> 5) == 0;
    }

    /** The Message ID of a datagram with a valid 4-byte header. */
    static int mid(ByteBuffer b) {
        return ((b.get(2) & 0xFF) << 8) | (b.get(3) & 0xFF);
    }
}
