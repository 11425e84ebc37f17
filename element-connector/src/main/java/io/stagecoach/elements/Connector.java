package io.stagecoach.elements;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The network stage: moves opaque datagrams between the network and an endpoint. A connector
 * knows nothing about CoAP, owns its threads and never blocks its caller.
 *
 * <p>Life cycle: {@link #start()} binds and starts threads; {@link #stop()} closes the socket,
 * ends every thread and releases the port (the address can be bound again immediately);
 * {@link #start()} after {@link #stop()} binds again; {@link #destroy()} stops for good.
 */
public interface Connector {

    /** Binds and starts receiving; no-op when already running. */
    void start() throws IOException;

    /**
     * Closes the socket and joins the connector's threads. Datagrams still queued for sending
     * fail with {@link SendFailedException.Reason#STOPPED}. Idempotent.
     */
    void stop();

    /** Stops and releases all resources; the connector cannot be started again. */
    void destroy();

    /**
     * Queues {@code data} for sending and returns at once. The outcome reaches the data's
     * {@link SendCallback}: too large, queue full or not running fail immediately on the calling
     * thread and are counted in {@link #counters()}.
     */
    void send(RawData data);

    /** Where inbound datagrams go; set it before {@link #start()}. */
    void setRawDataReceiver(RawDataReceiver receiver);

    /** The bound address while running (the real port after binding to port 0), else the configured one. */
    InetSocketAddress getAddress();

    /** Transport name, e.g. {@code "UDP"}. */
    String getProtocol();

    ConnectorCounters counters();
}
