package io.stagecoach.elements;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

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

    /**
     * Sends the bytes of {@code datagram} between its position and its limit to {@code destination},
     * with no callback: the outcome is counted in {@link #counters()} only, as for a
     * {@link RawData} without one. The connector has read the bytes when this returns (sent them,
     * or copied them into its queue), and before it calls back into anyone, so the caller may
     * reuse the buffer at once; the buffer's position afterwards is unspecified, its contents
     * and limit are not changed.
     *
     * <p>For an endpoint that encodes into a buffer of its own: a connector that can write the
     * buffer to its socket directly (the JDK UDP connector on its receive thread) allocates
     * nothing per datagram. This default copies the bytes into a new {@link RawData} and passes it
     * to {@link #send(RawData)}, so a connector that overrides only that method (and a
     * {@link ForwardingConnector} that observes it) sees every datagram.
     */
    default void send(ByteBuffer datagram, EndpointContext destination) {
        byte[] bytes = new byte[datagram.remaining()];
        datagram.get(bytes);
        send(RawData.outbound(bytes, destination, null));
    }

    /**
     * Sends {@code data} on the calling thread where this connector can write its socket from any
     * thread, skipping the hand-off to a thread of its own; otherwise as {@link #send(RawData)}
     * (this default). For a caller that owns a few threads of its own whose every datagram would
     * otherwise cost a thread switch (on a single core) while a peer waits for it: a DTLS
     * handshake's flights. The caller may block briefly while the socket's send buffer is full.
     */
    default void sendDirect(RawData data) {
        send(data);
    }

    /** Where inbound datagrams go; set it before {@link #start()}. */
    void setRawDataReceiver(RawDataReceiver receiver);

    /** The bound address while running (the real port after binding to port 0), else the configured one. */
    InetSocketAddress getAddress();

    /** Transport name, e.g. {@code "UDP"}. */
    String getProtocol();

    ConnectorCounters counters();

    /**
     * Where the peer of {@code context} is now. A connector whose sessions outlive the peer's
     * address (DTLS with connection IDs, RFC 9146 §6: the connection ID, not the address, names the
     * association) returns the context of that session at its current address; every other
     * connector returns {@code context} itself. The endpoint asks before it sends on a long-lived
     * exchange (an observe relation), so that the exchange follows a peer that moved.
     */
    default EndpointContext currentContext(EndpointContext context) {
        return context;
    }
}
