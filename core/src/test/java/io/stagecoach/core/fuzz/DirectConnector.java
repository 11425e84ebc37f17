package io.stagecoach.core.fuzz;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import java.net.InetSocketAddress;

/**
 * A connector without a network, threads or queues: {@link #deliver} calls the endpoint's receiver
 * on the caller's thread and {@link #send} only counts (and reports the datagram sent). The fuzz targets use it so that one input
 * runs start to end on the test thread, deterministically.
 */
final class DirectConnector implements Connector {

    private final InetSocketAddress address;
    private final ConnectorCounters counters = new ConnectorCounters();
    private RawDataReceiver receiver;
    private boolean running;
    private long sentBytes;

    DirectConnector(InetSocketAddress address) {
        this.address = address;
    }

    /** Hands {@code datagram} from {@code from} to the endpoint, as a receive thread would. */
    void deliver(byte[] datagram, InetSocketAddress from, long receiveNanos) {
        if (running && receiver != null) {
            counters.incrementReceived();
            receiver.receiveData(RawData.inbound(datagram, EndpointContext.of(from), receiveNanos));
        }
    }

    long sentBytes() {
        return sentBytes;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public void destroy() {
        running = false;
    }

    @Override
    public void send(RawData data) {
        counters.incrementSent();
        sentBytes += data.size();
        if (data.callback() != null) {
            data.callback().onSent();
        }
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        this.receiver = receiver;
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
