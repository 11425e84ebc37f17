package io.stagecoach.elements.dtls;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One peer's handshake, from the first verified ClientHello (server) or first send (client) until
 * it ends; if it succeeds, its {@link Session} takes over. Fields that the receive thread and the
 * handshake thread share are volatile or read under {@link #lock}.
 */
final class DtlsSession {

    /** Where the handshake is. */
    public enum State { HANDSHAKING, ESTABLISHED, CLOSED }

    /** Where an asynchronous PSK lookup of this handshake is. */
    public enum PskLookup { NONE, PENDING, DONE }

    public final Object lock = new Object();
    private final boolean client;
    private final long createdNanos;
    private final InetSocketAddress peer;
    private final EndpointContext plainContext;
    private volatile State state = State.HANDSHAKING;
    private volatile SessionTransport transport;
    private volatile ServerPeer serverPeer;
    private volatile Session established;
    private volatile boolean limited;
    private boolean failed; // under lock

    // client: plaintext sends waiting for the handshake (under lock)
    private final ArrayDeque<RawData> pending = new ArrayDeque<>();

    // server: asynchronous PSK lookup (under lock)
    public PskLookup pskLookup = PskLookup.NONE;
    public byte[] pskIdentity;
    public byte[] pskSecret;
    public final List<byte[]> held = new ArrayList<>();

    public DtlsSession(boolean client, InetSocketAddress peer, long nowNanos) {
        this.client = client;
        this.createdNanos = nowNanos;
        this.peer = peer;
        this.plainContext = EndpointContext.of(peer);
    }

    public boolean isClient() {
        return client;
    }

    public State state() {
        return state;
    }

    public void state(State s) {
        state = s;
    }

    public long createdNanos() {
        return createdNanos;
    }

    public InetSocketAddress peer() {
        return peer;
    }

    /** The peer only: the destination of handshake datagrams. */
    public EndpointContext plainContext() {
        return plainContext;
    }

    public SessionTransport transport() {
        return transport;
    }

    public void transport(SessionTransport t) {
        transport = t;
    }

    /** The session this handshake established (set under lock with state ESTABLISHED), or {@code null}. */
    public Session established() {
        return established;
    }

    public void established(Session s) {
        established = s;
    }

    public ServerPeer serverPeer() {
        return serverPeer;
    }

    public void serverPeer(ServerPeer p) {
        serverPeer = p;
    }

    /** Whether this handshake holds a slot of the handshake limiter. */
    public boolean limited() {
        return limited;
    }

    public void limited(boolean l) {
        limited = l;
    }

    /**
     * Marks the handshake failed. A handshake can fail twice over: the timeout sweep abandons it
     * and then BouncyCastle's thread sees its transport closed. Only the first call returns true,
     * so that the failure is counted once, and by whichever path fails the waiting sends first.
     */
    public boolean markFailed() {
        synchronized (lock) {
            if (failed) {
                return false;
            }
            failed = true;
            return true;
        }
    }

    /** Client: plaintext waiting for the handshake; caller holds {@link #lock}. */
    public ArrayDeque<RawData> pending() {
        return pending;
    }

    @Override
    public String toString() {
        return "DtlsSession[" + peer + " " + state + "]";
    }
}
