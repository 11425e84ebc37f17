package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Token;
import io.stagecoach.core.codec.TcpMessageParser;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What an endpoint keeps of one connection (RFC 8323 §3: the connection is the peer), by its
 * peer address: from the first request sent to it (client) or its opening (server) to its
 * close. Fields are written on the connection's I/O thread and read by the timeout sweep.
 */
final class ReliableConnection {

    final InetSocketAddress peer;
    /** With the connection id, once open. */
    volatile EndpointContext context;
    volatile long openedNanos = -1;
    volatile long lastActivityNanos;
    /** Since when a frame has been incomplete, -1 when none is. */
    volatile long partialSinceNanos = -1;
    /** The peer's CSM arrived (RFC 8323 §5.3). */
    volatile boolean csmReceived;
    /** The peer's Max-Message-Size: what we may send (§5.3.1); 1152 until its CSM says more. */
    volatile long peerMaxMessageSize = TcpMessageParser.DEFAULT_MAX_MESSAGE_SIZE;
    /** The peer's CSM offered Block-Wise-Transfer (§5.3.2). */
    volatile boolean peerBlockWise;
    /** The peer sent Release (§5.5): no new requests on this connection. */
    volatile boolean released;
    /** Abort, Release or close under way: nothing more is processed. */
    volatile boolean closing;
    /** No longer the endpoint's connection with {@link #peer}: frames still carrying it are dropped. */
    volatile boolean removed;
    final OpenExchanges exchanges = new OpenExchanges();
    /** Our Pings waiting for their Pong, by token. */
    final ConcurrentHashMap<Token, Exchange> pings = new ConcurrentHashMap<>();
    final PongCustody custody = new PongCustody();

    ReliableConnection(InetSocketAddress peer) {
        this.peer = peer;
    }

    boolean isOpen() {
        return openedNanos >= 0;
    }

    @Override
    public String toString() {
        return "connection " + (context != null ? context : peer);
    }
}
