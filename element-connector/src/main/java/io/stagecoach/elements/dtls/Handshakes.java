package io.stagecoach.elements.dtls;

import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.dtls.DtlsSession.PskLookup;
import io.stagecoach.elements.dtls.DtlsSession.State;
import io.stagecoach.elements.time.Clock;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.tls.DTLSClientProtocol;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.DTLSServerProtocol;
import org.bouncycastle.tls.TlsSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handshakes of one connector, run by BouncyCastle on the handshake pool: admission (after the
 * cookie, within the limits), the asynchronous PSK lookup, the client's queue of sends, and the
 * hand-over to a compact {@link Session} when BouncyCastle is done. The handshake's epoch-1 cipher
 * is BouncyCastle's; the session's is the {@link io.stagecoach.elements.dtls.RecordProtection}
 * {@link DtlsCrypto} made from the same keys.
 */
final class Handshakes {

    private static final Logger LOG = LoggerFactory.getLogger(Handshakes.class);
    private static final int HELD_DATAGRAMS = 16;
    private static final int NEW_EPOCH = 1;

    private final DtlsConnector connector;
    private final DtlsConnectorConfig config;
    private final DtlsCounters counters;
    private final Clock clock;
    private final DtlsCrypto crypto;
    private final BcCredentials credentials;
    private final CidGenerator cids;
    private final HandshakeLimiter limiter;
    private final SessionTable table;
    private final SessionRecords records;
    private final ResumptionCache serverResumption;
    private final BoundedCache<InetSocketAddress, TlsSession> clientResumption;
    private final Map<InetSocketAddress, DtlsSession> running = new ConcurrentHashMap<>();

    Handshakes(DtlsConnector connector, DtlsConnectorConfig config, DtlsCounters counters, DtlsCrypto crypto,
            BcCredentials credentials, CidGenerator cids, SessionTable table, SessionRecords records) {
        this.connector = connector;
        this.config = config;
        this.counters = counters;
        this.clock = config.clock();
        this.crypto = crypto;
        this.credentials = credentials;
        this.cids = cids;
        this.table = table;
        this.records = records;
        this.limiter = new HandshakeLimiter(config.maxHandshakes(), config.maxHandshakesPerSource());
        this.serverResumption = new ResumptionCache(config.resumptionCacheSize());
        this.clientResumption = new BoundedCache<>(config.resumptionCacheSize());
    }

    int count() {
        return running.size();
    }

    DtlsSession get(InetSocketAddress peer) {
        return running.get(peer);
    }

    // ---------------------------------------------------------------- server

    /**
     * A ClientHello whose cookie verified: admits the handshake within the limits (total and per
     * source, RFC 6347 §4.2.1's state only after the cookie) and starts it on the pool.
     */
    void admit(InetSocketAddress source, DTLSRequest request) {
        if (!limiter.tryAcquire(source.getAddress())) {
            counters.handshakesRejected.increment();
            return;
        }
        DtlsSession s = new DtlsSession(false, source, clock.nanoTime());
        s.limited(true);
        s.transport(newTransport(s));
        if (running.putIfAbsent(source, s) != null) {
            limiter.release(source.getAddress());
            return;
        }
        counters.handshakesStarted.increment();
        if (!connector.submit(() -> runServerHandshake(s, request))) {
            finish(s);
            counters.handshakesFailed.increment();
        }
    }

    private void runServerHandshake(DtlsSession s, DTLSRequest request) {
        ServerPeer peer = new ServerPeer(crypto, config, credentials, cids, table::cidInUse, serverResumption,
                identity -> resolvePsk(s, identity), s.peer(), deadline(s));
        s.serverPeer(peer);
        try {
            new DTLSServerProtocol().accept(peer, s.transport(), request);
            s.transport().flush(); // the final flight of a full handshake: the client waits for it
            complete(s, peer.result());
        } catch (IOException | RuntimeException e) {
            failed(s, e);
        } finally {
            DtlsCrypto.takeProtection();
            peer.forgetInvalidated();
            s.serverPeer(null);
            finish(s);
        }
    }

    /**
     * Hands a datagram to a running handshake, holding it while an asynchronous PSK lookup runs.
     *
     * @return {@code false} if the handshake has completed meanwhile and the datagram was not
     *         taken: the caller delivers it to the session
     */
    boolean offer(DtlsSession s, byte[] b, byte[] pskIdentity) {
        boolean startLookup = false;
        synchronized (s.lock) {
            if (s.state() == State.ESTABLISHED) {
                return false;
            }
            ServerPeer peer = s.serverPeer();
            if (!s.isClient() && config.pskStore() != null && s.pskLookup == PskLookup.NONE && pskIdentity != null
                    && peer != null && peer.selectedSuite() != null && peer.selectedSuite().isPsk()) {
                s.pskLookup = PskLookup.PENDING;
                s.pskIdentity = pskIdentity;
                startLookup = true;
            }
            if (s.pskLookup == PskLookup.PENDING) {
                if (s.held.size() < HELD_DATAGRAMS) {
                    s.held.add(b);
                }
            } else {
                s.transport().offer(b);
            }
        }
        if (startLookup) {
            startPskLookup(s);
        }
        return true;
    }

    private void startPskLookup(DtlsSession s) {
        counters.pskLookups.increment();
        CompletionStage<byte[]> stage;
        try {
            stage = config.pskStore().secretFor(new String(s.pskIdentity, StandardCharsets.UTF_8), s.peer());
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((secret, error) -> {
            synchronized (s.lock) {
                s.pskSecret = error == null && secret != null ? secret.clone() : null;
                s.pskLookup = PskLookup.DONE;
                for (byte[] d : s.held) {
                    s.transport().offer(d);
                }
                s.held.clear();
            }
        });
    }

    /**
     * BC's synchronous PSK callback, on the handshake thread. Normally the asynchronous lookup the
     * receive thread started has finished (BC asks only after it read the ClientKeyExchange, which
     * was held back until then). Otherwise (the ClientKeyExchange came fragmented, so the identity
     * was not seen early) this handshake thread waits for the store, at most until the deadline.
     */
    private byte[] resolvePsk(DtlsSession s, byte[] identity) throws IOException {
        synchronized (s.lock) {
            if (s.pskLookup == PskLookup.DONE && Arrays.equals(identity, s.pskIdentity)) {
                return s.pskSecret;
            }
        }
        counters.pskLookups.increment();
        CompletionStage<byte[]> stage = config.pskStore().secretFor(new String(identity, StandardCharsets.UTF_8),
                s.peer());
        long left = (deadline(s) - System.nanoTime()) / 1_000_000;
        try {
            byte[] secret = stage.toCompletableFuture().get(Math.max(1, left), TimeUnit.MILLISECONDS);
            return secret == null ? null : secret.clone(); // BC wipes the array it is given
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("PSK lookup interrupted");
        } catch (Exception e) {
            throw new IOException("PSK lookup failed", e);
        }
    }

    // ---------------------------------------------------------------- client

    /**
     * Queues {@code data} for the handshake with {@code peer}, starting that handshake if none
     * runs. Returns {@code data} back if no handshake is running any more (it has completed
     * meanwhile: the caller sends on the session), else {@code null}.
     */
    RawData queue(InetSocketAddress peer, RawData data) {
        DtlsSession fresh = new DtlsSession(true, peer, clock.nanoTime());
        fresh.transport(newTransport(fresh));
        DtlsSession hs = running.putIfAbsent(peer, fresh);
        boolean start = hs == null;
        if (start) {
            hs = fresh;
        }
        synchronized (hs.lock) {
            if (hs.state() == State.HANDSHAKING && !hs.transport().isClosed()) {
                if (hs.pending().size() >= config.handshakeQueueCapacity()) {
                    connector.counters().incrementDroppedQueueFull();
                    data.notifyFailed(new SendFailedException(Reason.QUEUE_FULL, "handshake queue of " + peer
                            + " full (" + config.handshakeQueueCapacity() + ")"));
                } else {
                    hs.pending().add(data);
                }
                data = null;
            }
        }
        if (start) {
            startClient(hs);
        }
        return data;
    }

    private void startClient(DtlsSession s) {
        if (!limiter.tryAcquire(s.peer().getAddress())) {
            counters.handshakesRejected.increment();
            failPending(s, new SendFailedException(Reason.QUEUE_FULL, "too many DTLS handshakes in progress"));
            running.remove(s.peer(), s);
            return;
        }
        s.limited(true);
        counters.handshakesStarted.increment();
        if (!connector.submit(() -> runClientHandshake(s))) {
            finish(s);
            counters.handshakesFailed.increment();
            failPending(s, new SendFailedException(Reason.STOPPED, "connector not running"));
        }
    }

    private void runClientHandshake(DtlsSession s) {
        ClientPeer peer = new ClientPeer(crypto, config, credentials, s.peer(), clientResumption.get(s.peer()),
                deadline(s));
        try {
            new DTLSClientProtocol().connect(peer, s.transport());
            s.transport().flush(); // the final flight of an abbreviated handshake
            HandshakeResult result = peer.result();
            if (result != null && result.session() != null) {
                clientResumption.put(s.peer(), result.session());
            }
            complete(s, result);
        } catch (IOException | RuntimeException e) {
            clientResumption.remove(s.peer());
            failed(s, e);
            failPending(s, new SendFailedException(Reason.IO_ERROR, "DTLS handshake with " + s.peer() + " failed", e));
        } finally {
            DtlsCrypto.takeProtection();
            finish(s);
        }
    }

    private void failPending(DtlsSession s, SendFailedException cause) {
        List<RawData> failed;
        synchronized (s.lock) {
            failed = new ArrayList<>(s.pending());
            s.pending().clear();
        }
        for (RawData d : failed) {
            connector.counters().incrementSendErrors();
            d.notifyFailed(cause);
        }
    }

    // ---------------------------------------------------------------- both

    /**
     * BouncyCastle is done: the session continues in compact form. The side that sent the final
     * flight (server of a full handshake, client of an abbreviated one) keeps that flight for the
     * peer's possible repetition of its own.
     */
    private void complete(DtlsSession s, HandshakeResult result) throws IOException {
        if (result == null || result.protection() == null) {
            throw new IOException("handshake ended without keys");
        }
        SessionTransport t = s.transport();
        boolean sentLast = s.isClient() == result.resumed();
        long now = clock.nanoTime();
        Session session = new Session(s.isClient(), s.peer(), result, NEW_EPOCH, t.nextSequence(NEW_EPOCH),
                sentLast ? t.lastFlight() : null, config.maxRecordSize(), now);
        List<byte[]> leftovers;
        List<RawData> toSend;
        List<Session> evicted = new ArrayList<>();
        Session replaced;
        synchronized (s.lock) {
            if (t.isClosed() || !connector.isRunning()) {
                throw new IOException("handshake abandoned");
            }
            replaced = table.add(session, now, evicted);
            s.established(session);
            s.state(State.ESTABLISHED);
            // Out of the running table before any record flows: the handshake thread reaches
            // finish() later, and a sweep in between must not time out a live session.
            running.remove(s.peer(), s);
            leftovers = t.establish();
            toSend = new ArrayList<>(s.pending());
            s.pending().clear();
        }
        if (replaced != null) {
            replaced.close(); // RFC 6347 §4.2.8: the new handshake from the same address replaces it
        }
        for (Session e : evicted) {
            e.close();
            counters.sessionsEvicted.increment();
        }
        counters.handshakesSucceeded.increment();
        if (result.resumed()) {
            counters.sessionsResumed.increment();
        }
        LOG.debug("DTLS session with {} established ({}, resumed {})", s.peer(), session.suite(), result.resumed());
        for (byte[] rest : leftovers) {
            connector.deliver(session, rest, s.peer(), now); // records of other epochs are skipped there
        }
        for (RawData d : toSend) {
            connector.encryptAndSend(session, d);
        }
    }

    private void failed(DtlsSession s, Exception e) {
        if (s.markFailed()) {
            counters.handshakesFailed.increment();
        }
        s.transport().close();
        if (connector.isRunning()) {
            LOG.debug("DTLS handshake with {} failed", s.peer(), e);
        }
    }

    /** Gives back the handshake slot; once per handshake. */
    private void finish(DtlsSession s) {
        running.remove(s.peer(), s);
        if (s.limited()) {
            s.limited(false);
            limiter.release(s.peer().getAddress());
        }
    }

    private SessionTransport newTransport(DtlsSession s) {
        return new SessionTransport(64, datagram -> connector.sendFlight(datagram, s.plainContext()),
                config.maxDatagramSize(), config.maxRecordSize(), () -> { });
    }

    private long deadline(DtlsSession s) {
        return System.nanoTime() + config.handshakeTimeout().toNanos() - (clock.nanoTime() - s.createdNanos());
    }

    /** Abandons handshakes older than the handshake timeout. */
    void sweep(long nowNanos) {
        long limit = config.handshakeTimeout().toNanos();
        for (DtlsSession s : running.values()) {
            if (s.state() != State.ESTABLISHED && nowNanos - s.createdNanos() > limit) {
                LOG.debug("handshake with {} timed out", s.peer());
                if (s.markFailed()) { // counted before the waiting sends learn of it
                    counters.handshakesFailed.increment();
                }
                s.transport().close();
                failPending(s, new SendFailedException(Reason.IO_ERROR, "DTLS handshake timed out"));
                finish(s);
            }
        }
    }

    /** stop(): every running handshake is cut short. */
    void abandonAll() {
        for (DtlsSession s : new ArrayList<>(running.values())) {
            s.transport().close();
            failPending(s, new SendFailedException(Reason.STOPPED, "connector stopped during the handshake"));
        }
        running.clear();
    }

    /** Handshakes in progress from {@code source}'s address block (for tests and counters). */
    int inProgress(java.net.InetAddress source) {
        return limiter.inProgress(source);
    }
}
