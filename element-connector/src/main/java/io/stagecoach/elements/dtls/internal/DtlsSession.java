package io.stagecoach.elements.dtls.internal;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.dtls.DtlsCipherSuite;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.tls.DTLSTransport;

/**
 * One peer's session, from the first verified ClientHello (server) or first send (client) until
 * it closes. Fields that the receive thread and the handshake thread share are volatile or read
 * under {@link #lock}; {@code lock} also serialises BC's {@code receive}, which is not
 * thread-safe (sending is, under BC's own write lock).
 */
public final class DtlsSession {

    /** Where the session is in its life. */
    public enum State { HANDSHAKING, ESTABLISHED, CLOSED }

    /** Where an asynchronous PSK lookup of this handshake is. */
    public enum PskLookup { NONE, PENDING, DONE }

    public final Object lock = new Object();
    private final boolean client;
    private final long createdNanos;
    private volatile State state = State.HANDSHAKING;
    private volatile InetSocketAddress peer;
    private volatile EndpointContext context;
    private volatile EndpointContext plainContext;
    private volatile long lastActiveNanos;
    private volatile SessionTransport transport;
    private volatile DTLSTransport dtls;
    private volatile HandshakeResult result;
    private volatile ServerPeer serverPeer;
    private volatile CidKey cid;
    private volatile DtlsCipherSuite suite;
    private volatile boolean limited;
    /** Highest sequence number of an accepted record in the current epoch (receive thread, under lock). */
    public long maxAcceptedSeq = -1;
    public int currentEpoch = -1;

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
        this.lastActiveNanos = nowNanos;
        setPeer(peer);
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

    public long lastActiveNanos() {
        return lastActiveNanos;
    }

    public void touch(long nanos) {
        lastActiveNanos = nanos;
    }

    public InetSocketAddress peer() {
        return peer;
    }

    /** Sets the peer address and rebuilds both contexts (only on handshake end and address change). */
    public void setPeer(InetSocketAddress address) {
        peer = address;
        plainContext = EndpointContext.of(address);
        HandshakeResult r = result;
        context = r == null ? plainContext : contextOf(address, r);
    }

    private EndpointContext contextOf(InetSocketAddress address, HandshakeResult r) {
        EndpointContext c = EndpointContext.of(address);
        if (r.principal() != null) {
            c = c.withAttribute(io.stagecoach.elements.dtls.DtlsContextKeys.PRINCIPAL, r.principal());
        }
        c = c.withAttribute(io.stagecoach.elements.dtls.DtlsContextKeys.SESSION_ID,
                java.util.HexFormat.of().formatHex(r.sessionId()));
        if (r.inboundCid() != null) {
            c = c.withAttribute(io.stagecoach.elements.dtls.DtlsContextKeys.CONNECTION_ID,
                    java.util.HexFormat.of().formatHex(r.inboundCid()));
        }
        DtlsCipherSuite s = DtlsCipherSuite.forCode(r.cipherSuite());
        c = c.withAttribute(io.stagecoach.elements.dtls.DtlsContextKeys.CIPHER_SUITE,
                s != null ? s.name() : String.format("0x%04X", r.cipherSuite()));
        return c;
    }

    /** The peer with the DTLS attributes: the context of delivered datagrams. */
    public EndpointContext context() {
        return context;
    }

    /** The peer only: the destination of ciphertext datagrams. */
    public EndpointContext plainContext() {
        return plainContext;
    }

    public SessionTransport transport() {
        return transport;
    }

    public void transport(SessionTransport t) {
        transport = t;
    }

    public DTLSTransport dtls() {
        return dtls;
    }

    public HandshakeResult result() {
        return result;
    }

    /** Records the finished handshake (under lock, before switching to ESTABLISHED). */
    public void established(DTLSTransport t, HandshakeResult r) {
        dtls = t;
        result = r;
        suite = DtlsCipherSuite.forCode(r.cipherSuite());
        cid = r.inboundCid() == null ? null : CidKey.of(r.inboundCid());
        setPeer(peer);
    }

    public ServerPeer serverPeer() {
        return serverPeer;
    }

    public void serverPeer(ServerPeer p) {
        serverPeer = p;
    }

    /** The connection ID we route this session's records by, or {@code null}. */
    public CidKey cid() {
        return cid;
    }

    public DtlsCipherSuite suite() {
        return suite;
    }

    /** Whether this handshake holds a slot of the handshake limiter. */
    public boolean limited() {
        return limited;
    }

    public void limited(boolean l) {
        limited = l;
    }

    /** Client: plaintext waiting for the handshake; caller holds {@link #lock}. */
    public ArrayDeque<RawData> pending() {
        return pending;
    }

    @Override
    public String toString() {
        return "DtlsSession[" + peer + " " + state + (cid != null ? " cid=" + cid : "") + "]";
    }
}
