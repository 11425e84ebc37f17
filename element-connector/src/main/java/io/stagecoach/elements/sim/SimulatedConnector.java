package io.stagecoach.elements.sim;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.SendFailedException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Connector} attached to a {@link SimulatedNetwork} at one socket address. It owns no
 * threads: {@link #send(RawData)} hands the datagram to the network at once (the callback's
 * {@code onSent} runs on the caller's thread; loss on the way is silent, as with UDP), and the
 * receiver is called on the network scheduler's thread.
 */
public final class SimulatedConnector implements Connector {

    /** The UDP payload limit. */
    public static final int DEFAULT_MAX_DATAGRAM_SIZE = 65_507;

    private static final Logger LOG = LoggerFactory.getLogger(SimulatedConnector.class);

    private final SimulatedNetwork network;
    private final InetSocketAddress configured;
    private final int maxDatagramSize;
    private final ConnectorCounters counters = new ConnectorCounters();
    private volatile RawDataReceiver receiver = data -> { };
    private volatile InetSocketAddress address;
    private volatile boolean running;
    private volatile boolean destroyed;

    SimulatedConnector(SimulatedNetwork network, InetSocketAddress address, int maxDatagramSize) {
        this.network = network;
        this.configured = Objects.requireNonNull(address, "address");
        this.address = address;
        this.maxDatagramSize = maxDatagramSize;
    }

    /** A connector like this one but with another maximum datagram size (inbound and outbound). */
    public SimulatedConnector withMaxDatagramSize(int bytes) {
        if (bytes < 1 || bytes > DEFAULT_MAX_DATAGRAM_SIZE) {
            throw new IllegalArgumentException("maxDatagramSize must be in [1, 65507]: " + bytes);
        }
        return new SimulatedConnector(network, configured, bytes);
    }

    @Override
    public synchronized void start() throws IOException {
        if (destroyed) {
            throw new IllegalStateException("connector destroyed");
        }
        if (!running) {
            address = network.attach(configured, this);
            running = true;
        }
    }

    @Override
    public synchronized void stop() {
        if (running) {
            running = false;
            network.detach(address, this);
        }
    }

    @Override
    public synchronized void destroy() {
        stop();
        destroyed = true;
    }

    @Override
    public void send(RawData data) {
        if (data.size() > maxDatagramSize) {
            counters.incrementDroppedOversize();
            data.notifyFailed(new SendFailedException(Reason.OVERSIZE,
                    data.size() + " bytes > maxDatagramSize " + maxDatagramSize));
            return;
        }
        if (!running) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.STOPPED, "connector not running"));
            return;
        }
        network.send(address, data.context().peer(), data.bytes());
        counters.incrementSent();
        data.notifySent();
    }

    /** Called by the network on the scheduler's thread; false if not running. */
    boolean deliver(InetSocketAddress src, byte[] bytes, long nanos) {
        if (!running) {
            return false;
        }
        if (bytes.length > maxDatagramSize) {
            counters.incrementDroppedOversize();
            return true;
        }
        counters.incrementReceived();
        try {
            receiver.receiveData(RawData.inbound(bytes, EndpointContext.of(src), nanos));
        } catch (RuntimeException e) {
            LOG.warn("RawDataReceiver of {} threw on datagram from {}", address, src, e);
        }
        return true;
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

    @Override
    public String toString() {
        return "SimulatedConnector[" + address + (running ? "" : ", stopped") + "]";
    }
}
