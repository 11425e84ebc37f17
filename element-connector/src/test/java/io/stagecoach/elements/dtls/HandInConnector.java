package io.stagecoach.elements.dtls;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import java.net.InetSocketAddress;

/**
 * A connector below a DTLS connector under test that hands datagrams in on the test's thread
 * ({@link #handIn}) and leaves what the server sends to the subclass; it owns no socket or thread,
 * so start, stop and destroy have nothing to do.
 */
abstract class HandInConnector implements Connector {
    private volatile RawDataReceiver receiver = d -> { };
    private final ConnectorCounters counters = new ConnectorCounters();

    /** Gives {@code datagram} from {@code from} to the connector above, stamped {@code nanos}. */
    final void handIn(byte[] datagram, InetSocketAddress from, long nanos) {
        receiver.receiveData(RawData.inbound(datagram, EndpointContext.of(from), nanos));
    }

    @Override
    public void start() {
    }

    @Override
    public void stop() {
    }

    @Override
    public void destroy() {
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver r) {
        receiver = r;
    }

    @Override
    public InetSocketAddress getAddress() {
        return new InetSocketAddress("192.0.2.1", 5684);
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
