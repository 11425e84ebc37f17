package io.stagecoach.elements.dtls;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.dtls.internal.BcCredentials;
import io.stagecoach.elements.dtls.internal.BoundedCache;
import io.stagecoach.elements.dtls.internal.CidGenerator;
import io.stagecoach.elements.dtls.internal.CidKey;
import io.stagecoach.elements.dtls.internal.ClientPeer;
import io.stagecoach.elements.dtls.internal.DtlsSession;
import io.stagecoach.elements.dtls.internal.DtlsSession.PskLookup;
import io.stagecoach.elements.dtls.internal.DtlsSession.State;
import io.stagecoach.elements.dtls.internal.HandshakeFragment;
import io.stagecoach.elements.dtls.internal.HandshakeLimiter;
import io.stagecoach.elements.dtls.internal.HandshakeResult;
import io.stagecoach.elements.dtls.internal.MalformedRecordException;
import io.stagecoach.elements.dtls.internal.RecordHeader;
import io.stagecoach.elements.dtls.internal.ServerPeer;
import io.stagecoach.elements.dtls.internal.SessionTransport;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Clock;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.tls.DTLSClientProtocol;
import org.bouncycastle.tls.DTLSRecordCallback;
import org.bouncycastle.tls.DTLSRecordFlags;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.DTLSServerProtocol;
import org.bouncycastle.tls.DTLSTransport;
import org.bouncycastle.tls.DTLSVerifier;
import org.bouncycastle.tls.DatagramSender;
import org.bouncycastle.tls.TlsFatalAlertReceived;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DTLS 1.2 (RFC 6347) with connection IDs (RFC 9146) on BouncyCastle: moves plaintext CoAP
 * datagrams between the endpoint above and encrypted records on a datagram {@link Connector}
 * below (a {@code UdpConnector} unless {@link DtlsConnectorConfig.Builder#transport} says
 * otherwise). Delivered datagrams carry the {@link DtlsContextKeys} attributes; sending needs
 * only the peer address.
 *
 * <p><b>Threads.</b> The receive thread of the connector below parses each record header itself
 * ({@link RecordHeader}), finds the session by connection ID or peer address, and for an
 * established session decrypts in place by driving BC's {@code DTLSTransport.receive} on that
 * same thread: an established session costs no thread and no hand-off. Handshakes run on a
 * bounded pool ({@code stagecoach-dtls-handshake-N}) where BC blocks; the receive thread feeds
 * them through a queue. Sending encrypts on the caller's thread. A sweep
 * ({@code stagecoach-timer-N}, or the given scheduler) expires idle sessions and overdue
 * handshakes.
 *
 * <p><b>Denial of service.</b> A ClientHello without a valid cookie gets a stateless
 * HelloVerifyRequest (BC's {@link DTLSVerifier}; never larger than the ClientHello). Only a
 * returned cookie admits a handshake, within {@code dtls.max-handshakes} and
 * {@code dtls.max-handshakes-per-source}. Records are screened before BC sees them (see
 * {@code docs/dtls.md}).
 */
public final class DtlsConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(DtlsConnector.class);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);
    /** BC's own limit on a handshake message (AbstractTlsPeer); we drop larger ones earlier. */
    private static final int MAX_HANDSHAKE_MESSAGE = 32_768;
    private static final int HELD_DATAGRAMS = 16;
    private static final ThreadLocal<RawData> OUTBOUND = new ThreadLocal<>();
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private enum Lifecycle { NEW, RUNNING, STOPPED, DESTROYED }

    /** Per-thread parse state and buffers: the hot path allocates only the plaintext it hands up. */
    private static final class Scratch implements DTLSRecordCallback {
        final RecordHeader header = new RecordHeader();
        final HandshakeFragment fragment = new HandshakeFragment();
        final byte[] plaintext = new byte[RecordHeader.MAX_FRAGMENT_LENGTH];
        int flags;
        boolean accepted;

        @Override
        public void recordAccepted(int f) {
            accepted = true;
            flags = f;
        }
    }

    /** What the screen of one datagram found in its first record. */
    private static final class Screened {
        int type;
        int epoch;
        long seq;
        int cidOffset = -1;
        boolean clientHello;
        byte[] pskIdentity;
        int minProtectedFragment = Integer.MAX_VALUE;
    }

    private final DtlsConnectorConfig config;
    private final ConnectorCounters counters = new ConnectorCounters();
    private final DtlsCounters dtlsCounters = new DtlsCounters();
    private final Object lifecycleLock = new Object();
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final BcTlsCrypto crypto = new BcTlsCrypto(random);
    private final BcCredentials credentials;
    private final CidGenerator cids;
    private final HandshakeLimiter limiter;
    private final BoundedCache<String, TlsSession> serverResumption;
    private final BoundedCache<InetSocketAddress, TlsSession> clientResumption;
    private final Map<InetSocketAddress, DtlsSession> established = new ConcurrentHashMap<>();
    private final Map<CidKey, DtlsSession> byCid = new ConcurrentHashMap<>();
    private final Map<InetSocketAddress, DtlsSession> handshakes = new ConcurrentHashMap<>();
    private final LogThrottle receiverLog;
    private final AtomicInteger closeNotifiesPending = new AtomicInteger();

    private volatile Lifecycle state = Lifecycle.NEW;
    private volatile RawDataReceiver receiver = data -> { };
    private volatile Connector transport;
    private volatile DTLSVerifier verifier;
    private NamedThreadFactory handshakeThreads;
    private ThreadPoolExecutor handshakePool;
    private RealTimeScheduler ownTimer;
    private Cancellable sweep;

    DtlsConnector(DtlsConnectorConfig config) {
        this.config = config;
        this.clock = config.clock();
        this.receiverLog = new LogThrottle(clock, Duration.ofSeconds(10));
        try {
            this.credentials = config.certificateCredentials() == null ? null
                    : new BcCredentials(crypto, config.certificateCredentials());
        } catch (IOException e) {
            throw new IllegalArgumentException("unusable certificate credentials: " + e.getMessage(), e);
        }
        this.cids = new CidGenerator(config.role() == DtlsConnectorConfig.Role.SERVER ? config.cidLength() : 0,
                config.nodeId(), random);
        this.limiter = new HandshakeLimiter(config.maxHandshakes(), config.maxHandshakesPerSource());
        this.serverResumption = new BoundedCache<>(config.resumptionCacheSize());
        this.clientResumption = new BoundedCache<>(config.resumptionCacheSize());
    }

    /** A builder for a server (accepts handshakes) or a client (connects on first send). */
    public static DtlsConnectorConfig.Builder builder(DtlsConnectorConfig.Role role) {
        return DtlsConnectorConfig.builder(role);
    }

    public DtlsConnectorConfig config() {
        return config;
    }

    /** DTLS events: handshakes, HelloVerifyRequests, dropped records, evictions. */
    public DtlsCounters dtlsCounters() {
        return dtlsCounters;
    }

    /** Established sessions now. */
    public int sessionCount() {
        return established.size();
    }

    /** Handshakes in progress now. */
    public int handshakeCount() {
        return handshakes.size();
    }

    /** The context of the established session with {@code peer}, or {@code null}. */
    public EndpointContext sessionContext(InetSocketAddress peer) {
        DtlsSession s = established.get(peer);
        return s == null ? null : s.context();
    }

    // ---------------------------------------------------------------- life cycle

    @Override
    public void start() throws IOException {
        synchronized (lifecycleLock) {
            if (state == Lifecycle.RUNNING) {
                return;
            }
            if (state == Lifecycle.DESTROYED) {
                throw new IllegalStateException("connector destroyed");
            }
            Connector below = transport;
            if (below == null) {
                below = config.transportFactory() != null ? config.transportFactory().apply(config) : udp();
                transport = below;
            }
            below.setRawDataReceiver(this::receiveRecords);
            verifier = new DTLSVerifier(crypto);
            handshakeThreads = new NamedThreadFactory("dtls-handshake", true);
            handshakePool = new ThreadPoolExecutor(config.handshakeThreads(), config.handshakeThreads(), 30,
                    TimeUnit.SECONDS, new LinkedBlockingQueue<>(), handshakeThreads);
            handshakePool.allowCoreThreadTimeOut(true);
            state = Lifecycle.RUNNING;
            try {
                below.start();
            } catch (IOException | RuntimeException e) {
                state = Lifecycle.STOPPED;
                shutdownPool();
                throw e;
            }
            Scheduler scheduler = config.scheduler();
            if (scheduler == null) {
                ownTimer = new RealTimeScheduler();
                scheduler = ownTimer;
            }
            Duration period = Duration.ofMillis(Math.min(1000, config.handshakeTimeout().toMillis() / 4));
            sweep = scheduler.scheduleAtFixedRate(this::sweep, period, period);
            LOG.info("DTLS {} on {} ({})", config.role(), below.getAddress(), config);
        }
    }

    private Connector udp() {
        return UdpConnectorConfig.builder().bindAddress(config.bindAddress())
                .receiverThreads(config.receiverThreads())
                .maxDatagramSize(config.maxDatagramSize())
                .receiveBufferSize(config.receiveBufferSize())
                .sendBufferSize(config.sendBufferSize())
                .clock(clock)
                .build();
    }

    /**
     * Sends close_notify to every established peer, abandons handshakes, joins the handshake and
     * timer threads and stops the connector below. Client sends still waiting for a handshake fail
     * with {@link Reason#STOPPED}.
     */
    @Override
    public void stop() {
        synchronized (lifecycleLock) {
            if (state != Lifecycle.RUNNING) {
                return;
            }
            state = Lifecycle.STOPPED;
            if (sweep != null) {
                sweep.cancel();
                sweep = null;
            }
            for (DtlsSession s : new ArrayList<>(established.values())) {
                closeSession(s, true);
            }
            for (DtlsSession s : new ArrayList<>(handshakes.values())) {
                abandon(s);
            }
            awaitCloseNotifies();
            shutdownPool();
            if (ownTimer != null) {
                ownTimer.close();
                ownTimer = null;
            }
            transport.stop();
            established.clear();
            byCid.clear();
            handshakes.clear();
        }
    }

    private void awaitCloseNotifies() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (closeNotifiesPending.get() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        closeNotifiesPending.set(0);
    }

    private void shutdownPool() {
        if (handshakePool != null) {
            handshakePool.shutdownNow();
            try {
                handshakePool.awaitTermination(JOIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!handshakeThreads.joinAll(JOIN_TIMEOUT)) {
                LOG.warn("handshake threads still alive after stop: {}", handshakeThreads.liveThreads());
            }
            handshakePool = null;
        }
    }

    @Override
    public void destroy() {
        synchronized (lifecycleLock) {
            stop();
            if (transport != null) {
                transport.destroy();
            }
            state = Lifecycle.DESTROYED;
            receiver = data -> { };
        }
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        this.receiver = java.util.Objects.requireNonNull(receiver, "receiver");
    }

    @Override
    public InetSocketAddress getAddress() {
        Connector below = transport;
        return below != null ? below.getAddress() : config.bindAddress();
    }

    @Override
    public String getProtocol() {
        return "DTLS";
    }

    /** Plaintext datagrams: received = handed up, sent = encrypted and handed to the socket. */
    @Override
    public ConnectorCounters counters() {
        return counters;
    }

    @Override
    public String toString() {
        return "DtlsConnector[" + config.role() + " " + getAddress() + ", " + state + "]";
    }

    // ---------------------------------------------------------------- receive path

    /** Called on the receive thread of the connector below, once per ciphertext datagram. */
    private void receiveRecords(RawData raw) {
        byte[] b = raw.sharedBytes();
        InetSocketAddress source = raw.context().peer();
        Scratch scratch = SCRATCH.get();
        Screened first = new Screened();
        try {
            screen(b, scratch, first);
        } catch (MalformedRecordException e) {
            dtlsCounters.datagramsMalformed.increment();
            LOG.trace("dropped datagram from {}: {}", source, e.getMessage());
            return;
        }
        if (first.cidOffset >= 0) {
            CidKey cid = CidKey.of(b, first.cidOffset, cids.length());
            DtlsSession s = byCid.get(cid);
            if (s != null && deliverEstablished(s, b, source, raw.receiveNanos(), first)) {
                return;
            }
            // the peer's Finished of a handshake still running carries the CID already
            DtlsSession hs = handshakes.get(source);
            if (hs != null && offerToHandshake(hs, b, first)) {
                return;
            }
            // The handshake may have completed since the lookup above: this is then the session's
            // first record (completeHandshake publishes the session before it leaves the handshakes).
            DtlsSession now = byCid.get(cid);
            if (now != null && now != s && deliverEstablished(now, b, source, raw.receiveNanos(), first)) {
                return;
            }
            if (hs == null) {
                dtlsCounters.datagramsNoSession.increment();
            }
            return;
        }
        if (first.clientHello) {
            DtlsSession hs = handshakes.get(source);
            if (hs != null) {
                offerToHandshake(hs, b, first);
            } else if (config.role() == DtlsConnectorConfig.Role.SERVER) {
                clientHello(b, source);
            }
            return;
        }
        DtlsSession s = established.get(source);
        if (s != null && first.epoch > 0 && deliverEstablished(s, b, source, raw.receiveNanos(), first)) {
            return;
        }
        DtlsSession hs = handshakes.get(source);
        if (hs != null && offerToHandshake(hs, b, first)) {
            return;
        }
        if (s != null && hs == null && first.epoch == 0 && first.type == RecordHeader.HANDSHAKE) {
            // The peer repeats its last flight: ours (the server's ChangeCipherSpec and Finished)
            // was lost. RFC 6347 §4.2.4: answer with our last flight again. BC does, from the
            // retransmit state it keeps until the peer's first application data, and only for a
            // complete copy of that flight; anything else it ignores.
            deliverEstablished(s, b, source, raw.receiveNanos(), first);
            return;
        }
        // As above: a record of epoch 1 or later may be the first of a session established since
        // the lookup above (a straggler of epoch 0 is dropped).
        DtlsSession now = established.get(source);
        if (now != null && now != s && first.epoch > 0
                && deliverEstablished(now, b, source, raw.receiveNanos(), first)) {
            return;
        }
        if (s == null && hs == null && now == null) {
            dtlsCounters.datagramsNoSession.increment();
        }
    }

    /**
     * Parses every record of the datagram and every handshake fragment of its plaintext records;
     * throws for anything malformed, for a fragment announcing a message larger than
     * {@value #MAX_HANDSHAKE_MESSAGE} bytes (BC 1.84 would allocate the announced size), and
     * notes the PSK identity of a ClientKeyExchange.
     */
    private void screen(byte[] b, Scratch scratch, Screened first) throws MalformedRecordException {
        RecordHeader h = scratch.header;
        HandshakeFragment f = scratch.fragment;
        int off = 0;
        boolean isFirst = true;
        while (off < b.length) {
            h.parse(b, off, b.length, cids.length());
            if (isFirst) {
                first.type = h.contentType();
                first.epoch = h.epoch();
                first.seq = h.sequence();
                first.cidOffset = h.cidOffset();
                isFirst = false;
            }
            if (h.epoch() == 0 && h.contentType() == RecordHeader.HANDSHAKE) {
                int fo = h.fragmentOffset();
                while (fo < h.end()) {
                    f.parse(b, fo, h.end());
                    if (f.messageLength() > MAX_HANDSHAKE_MESSAGE) {
                        throw new MalformedRecordException("handshake message of " + f.messageLength() + " bytes");
                    }
                    if (f.type() == HandshakeFragment.CLIENT_HELLO && h.recordOffset() == 0 && fo == h.fragmentOffset()) {
                        first.clientHello = true;
                    }
                    if (first.pskIdentity == null) {
                        first.pskIdentity = f.pskIdentity(b);
                    }
                    fo = f.end();
                }
            } else if (h.epoch() > 0) {
                first.minProtectedFragment = Math.min(first.minProtectedFragment, h.fragmentLength());
            }
            off = h.end();
        }
    }

    /**
     * Decrypts the datagram for an established session on this thread and hands the plaintext up.
     *
     * @return {@code false} if the session is not established (the caller may try a handshake)
     */
    private boolean deliverEstablished(DtlsSession s, byte[] b, InetSocketAddress source, long nanos,
            Screened first) {
        List<RawData> up = null;
        synchronized (s.lock) {
            if (s.state() != State.ESTABLISHED) {
                return false;
            }
            DtlsCipherSuite suite = s.suite();
            if (suite != null && first.minProtectedFragment < suite.minCiphertextLength()) {
                // BC 1.84 answers a too-short AEAD record with a fatal decode_error: the session would
                // die on one unauthenticated datagram.
                dtlsCounters.datagramsMalformed.increment();
                return true;
            }
            Scratch scratch = SCRATCH.get();
            DTLSTransport dtls = s.dtls();
            SessionTransport t = s.transport();
            scratch.accepted = false;
            scratch.flags = 0;
            t.drive(b);
            int n;
            try {
                n = dtls.receive(scratch.plaintext, 0, scratch.plaintext.length, 0, scratch);
            } catch (InterruptedIOException e) {
                n = -1;
            } catch (TlsFatalAlertReceived e) {
                dtlsCounters.sessionsClosedByPeer.increment();
                removeSession(s);
                return true;
            } catch (IOException e) {
                LOG.debug("session with {} failed: {}", s.peer(), e.toString());
                removeSession(s);
                return true;
            } finally {
                t.drive(null);
            }
            if (!scratch.accepted) {
                countRejected(s, first);
                return true;
            }
            long now = clock.nanoTime();
            s.touch(now);
            if (first.epoch == s.currentEpoch || s.currentEpoch < 0 || first.epoch > s.currentEpoch) {
                if (first.epoch > s.currentEpoch) {
                    s.currentEpoch = first.epoch;
                    s.maxAcceptedSeq = -1;
                }
                s.maxAcceptedSeq = Math.max(s.maxAcceptedSeq, first.seq);
            }
            if (!source.equals(s.peer()) && (scratch.flags & DTLSRecordFlags.IS_NEWEST) != 0
                    && (scratch.flags & DTLSRecordFlags.USES_CONNECTION_ID) != 0) {
                changeAddress(s, source);
            }
            if (s.transport().isClosed()) {
                // close_notify: BC answered it and closed; onClose removed the session
                return true;
            }
            if (n >= 0) {
                up = new ArrayList<>(1);
                up.add(RawData.inbound(Arrays.copyOf(scratch.plaintext, n), s.context(), nanos));
            }
            // further records of the same datagram
            while (true) {
                int m;
                try {
                    m = dtls.receivePending(scratch.plaintext, 0, scratch.plaintext.length, null);
                } catch (IOException e) {
                    removeSession(s);
                    break;
                }
                if (m < 0) {
                    break;
                }
                if (up == null) {
                    up = new ArrayList<>(1);
                }
                up.add(RawData.inbound(Arrays.copyOf(scratch.plaintext, m), s.context(), nanos));
            }
        }
        if (up != null) {
            for (RawData d : up) {
                handUp(d);
            }
        }
        return true;
    }

    private void countRejected(DtlsSession s, Screened first) {
        if (first.epoch == s.currentEpoch && first.seq > s.maxAcceptedSeq) {
            dtlsCounters.recordsBadMac.increment(); // a new sequence number: not a replay, so it failed authentication
        } else if (first.epoch == 0 || first.epoch < s.currentEpoch || first.seq <= s.maxAcceptedSeq) {
            dtlsCounters.recordsReplayed.increment();
        } else {
            dtlsCounters.recordsBadMac.increment();
        }
    }

    /** RFC 9146 §6: only an authenticated record newer than any before moves the session. */
    private void changeAddress(DtlsSession s, InetSocketAddress source) {
        InetSocketAddress old = s.peer();
        s.setPeer(source);
        established.remove(old, s);
        established.put(source, s);
        dtlsCounters.addressChanges.increment();
        LOG.debug("session {} moved from {} to {}", s.cid(), old, source);
    }

    private void handUp(RawData d) {
        counters.incrementReceived();
        try {
            receiver.receiveData(d);
        } catch (RuntimeException e) {
            long held = receiverLog.tryAcquire();
            if (held >= 0) {
                LOG.warn("RawDataReceiver threw on datagram from {} ({} more since the last report)",
                        d.context().peer(), held, e);
            }
        }
    }

    // ---------------------------------------------------------------- server handshakes

    /** A ClientHello from an address with no handshake in progress: cookie first, state later. */
    private void clientHello(byte[] b, InetSocketAddress source) {
        DTLSVerifier v = verifier;
        if (v == null || state != Lifecycle.RUNNING) {
            return;
        }
        byte[] clientId = clientId(source);
        DatagramSender hvr = new DatagramSender() {
            @Override
            public int getSendLimit() {
                return config.maxRecordSize();
            }

            @Override
            public void send(byte[] buf, int off, int len) {
                dtlsCounters.helloVerifyRequestsSent.increment();
                sendCiphertext(Arrays.copyOfRange(buf, off, off + len), EndpointContext.of(source), null);
            }
        };
        DTLSRequest request;
        try {
            request = v.verifyRequest(clientId, b, 0, b.length, hvr);
        } catch (RuntimeException e) {
            // BC 1.84 parses the hello with unchecked exceptions for some bad fields (a reserved
            // client_version such as {254, 254} throws IllegalArgumentException): a malformed
            // datagram, dropped like the others (found by DtlsServerFuzzTest)
            dtlsCounters.datagramsMalformed.increment();
            LOG.trace("dropped ClientHello from {}: {}", source, e.toString());
            return;
        }
        if (request == null) {
            return;
        }
        if (!limiter.tryAcquire(source.getAddress())) {
            dtlsCounters.handshakesRejected.increment();
            return;
        }
        DtlsSession s = new DtlsSession(false, source, clock.nanoTime());
        s.limited(true);
        s.transport(newTransport(s));
        if (handshakes.putIfAbsent(source, s) != null) {
            limiter.release(source.getAddress());
            return;
        }
        dtlsCounters.handshakesStarted.increment();
        if (!submit(() -> runServerHandshake(s, request))) {
            finishHandshake(s);
            dtlsCounters.handshakesFailed.increment();
        }
    }

    private static byte[] clientId(InetSocketAddress source) {
        byte[] ip = source.getAddress().getAddress();
        byte[] id = Arrays.copyOf(ip, ip.length + 2);
        id[ip.length] = (byte) (source.getPort() >> 8);
        id[ip.length + 1] = (byte) source.getPort();
        return id;
    }

    private boolean submit(Runnable task) {
        ThreadPoolExecutor pool = handshakePool;
        if (pool == null) {
            return false;
        }
        try {
            pool.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private SessionTransport newTransport(DtlsSession s) {
        return new SessionTransport(64, datagram -> sendFromSession(s, datagram), config.maxDatagramSize(),
                config.maxRecordSize(), () -> onTransportClosed(s));
    }

    private long deadline(DtlsSession s) {
        return System.nanoTime() + config.handshakeTimeout().toNanos() - (clock.nanoTime() - s.createdNanos());
    }

    private void runServerHandshake(DtlsSession s, DTLSRequest request) {
        ServerPeer peer = new ServerPeer(crypto, config, credentials, cids, byCid::containsKey, serverResumption,
                identity -> resolvePsk(s, identity), s.peer(), deadline(s));
        s.serverPeer(peer);
        try {
            DTLSServerProtocol protocol = new DTLSServerProtocol();
            DTLSTransport dtls = protocol.accept(peer, s.transport(), request);
            completeHandshake(s, dtls, peer.result());
        } catch (IOException | RuntimeException e) {
            handshakeFailed(s, e);
        } finally {
            finishHandshake(s);
        }
    }

    /**
     * Hands a datagram to a running handshake, holding it while an asynchronous PSK lookup runs.
     *
     * @return {@code false} if the handshake has completed meanwhile and the datagram was not
     *         taken: a straggler of the handshake, or the first record of the session, which the
     *         caller delivers as such
     */
    private boolean offerToHandshake(DtlsSession s, byte[] b, Screened first) {
        boolean startLookup = false;
        synchronized (s.lock) {
            if (s.state() == State.ESTABLISHED) {
                return false;
            }
            if (!s.isClient() && config.pskStore() != null && s.pskLookup == PskLookup.NONE
                    && first.pskIdentity != null && s.serverPeer() != null && s.serverPeer().selectedSuite() != null
                    && s.serverPeer().selectedSuite().isPsk()) {
                s.pskLookup = PskLookup.PENDING;
                s.pskIdentity = first.pskIdentity;
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
        dtlsCounters.pskLookups.increment();
        CompletionStage<byte[]> stage;
        try {
            stage = config.pskStore().secretFor(new String(s.pskIdentity, StandardCharsets.UTF_8), s.peer());
        } catch (RuntimeException e) {
            stage = java.util.concurrent.CompletableFuture.failedFuture(e);
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
     * we held back until then). Otherwise (the ClientKeyExchange came fragmented, so the identity
     * was not seen early) this handshake thread waits for the store, at most until the deadline.
     */
    private byte[] resolvePsk(DtlsSession s, byte[] identity) throws IOException {
        synchronized (s.lock) {
            if (s.pskLookup == PskLookup.DONE && Arrays.equals(identity, s.pskIdentity)) {
                return s.pskSecret;
            }
        }
        dtlsCounters.pskLookups.increment();
        CompletionStage<byte[]> stage = config.pskStore().secretFor(new String(identity, StandardCharsets.UTF_8),
                s.peer());
        long left = (deadline(s) - System.nanoTime()) / 1_000_000;
        try {
            return stage.toCompletableFuture().get(Math.max(1, left), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("PSK lookup interrupted");
        } catch (Exception e) {
            throw new IOException("PSK lookup failed", e);
        }
    }

    // ---------------------------------------------------------------- client handshakes

    private void startClientHandshake(DtlsSession s) {
        if (!limiter.tryAcquire(s.peer().getAddress())) {
            dtlsCounters.handshakesRejected.increment();
            failPending(s, new SendFailedException(Reason.QUEUE_FULL, "too many DTLS handshakes in progress"));
            handshakes.remove(s.peer(), s);
            return;
        }
        s.limited(true);
        dtlsCounters.handshakesStarted.increment();
        if (!submit(() -> runClientHandshake(s))) {
            finishHandshake(s);
            dtlsCounters.handshakesFailed.increment();
            failPending(s, new SendFailedException(Reason.STOPPED, "connector not running"));
        }
    }

    private void runClientHandshake(DtlsSession s) {
        ClientPeer peer = new ClientPeer(crypto, config, credentials, s.peer(), clientResumption.get(s.peer()),
                deadline(s));
        try {
            DTLSTransport dtls = new DTLSClientProtocol().connect(peer, s.transport());
            HandshakeResult result = peer.result();
            if (result.session() != null) {
                clientResumption.put(s.peer(), result.session());
            }
            completeHandshake(s, dtls, result);
        } catch (IOException | RuntimeException e) {
            clientResumption.remove(s.peer());
            handshakeFailed(s, e);
            failPending(s, new SendFailedException(Reason.IO_ERROR, "DTLS handshake with " + s.peer() + " failed", e));
        } finally {
            finishHandshake(s);
        }
    }

    private void failPending(DtlsSession s, SendFailedException cause) {
        List<RawData> failed;
        synchronized (s.lock) {
            failed = new ArrayList<>(s.pending());
            s.pending().clear();
        }
        for (RawData d : failed) {
            counters.incrementSendErrors();
            d.notifyFailed(cause);
        }
    }

    // ---------------------------------------------------------------- both sides

    private void completeHandshake(DtlsSession s, DTLSTransport dtls, HandshakeResult result) throws IOException {
        if (result == null) {
            throw new IOException("handshake ended without a result");
        }
        List<RawData> toSend;
        List<RawData> up = new ArrayList<>();
        synchronized (s.lock) {
            if (s.transport().isClosed() || state != Lifecycle.RUNNING) {
                throw new IOException("handshake abandoned");
            }
            s.established(dtls, result);
            s.touch(clock.nanoTime());
            makeRoom();
            DtlsSession old = established.put(s.peer(), s);
            if (old != null && old != s) {
                dropSession(old); // RFC 6347 §4.2.8: the new handshake from the same address replaces it
            }
            if (s.cid() != null) {
                byCid.put(s.cid(), s);
            }
            s.state(State.ESTABLISHED);
            for (byte[] rest : s.transport().establish()) {
                drainOne(s, rest, up);
            }
            toSend = new ArrayList<>(s.pending());
            s.pending().clear();
        }
        dtlsCounters.handshakesSucceeded.increment();
        if (result.resumed()) {
            dtlsCounters.sessionsResumed.increment();
        }
        LOG.debug("DTLS session with {} established ({}, resumed {})", s.peer(), s.suite(), result.resumed());
        for (RawData d : up) {
            handUp(d);
        }
        for (RawData d : toSend) {
            encryptAndSend(s, d);
        }
    }

    /** A datagram that reached the handshake queue after BC's last read: decrypt it now (under lock). */
    private void drainOne(DtlsSession s, byte[] b, List<RawData> up) {
        Scratch scratch = SCRATCH.get();
        s.transport().drive(b);
        try {
            int n = s.dtls().receive(scratch.plaintext, 0, scratch.plaintext.length, 0, null);
            if (n >= 0) {
                up.add(RawData.inbound(Arrays.copyOf(scratch.plaintext, n), s.context(), clock.nanoTime()));
            }
        } catch (IOException e) {
            LOG.trace("leftover handshake datagram of {} not accepted: {}", s.peer(), e.toString());
        } finally {
            s.transport().drive(null);
        }
    }

    private void handshakeFailed(DtlsSession s, Exception e) {
        dtlsCounters.handshakesFailed.increment();
        s.transport().close();
        if (state == Lifecycle.RUNNING) {
            LOG.debug("DTLS handshake with {} failed", s.peer(), e);
        }
    }

    /** Gives back the handshake slot; once per handshake. */
    private void finishHandshake(DtlsSession s) {
        handshakes.remove(s.peer(), s);
        if (s.limited()) {
            s.limited(false);
            limiter.release(s.peer().getAddress());
        }
    }

    /** Evicts the least recently active session when the table is full (a scan: only at capacity). */
    private void makeRoom() {
        while (established.size() >= config.maxSessions()) {
            DtlsSession oldest = null;
            for (DtlsSession s : established.values()) {
                if (oldest == null || s.lastActiveNanos() - oldest.lastActiveNanos() < 0) {
                    oldest = s;
                }
            }
            if (oldest == null) {
                return;
            }
            dropSession(oldest);
            dtlsCounters.sessionsEvicted.increment();
        }
    }

    private void onTransportClosed(DtlsSession s) {
        if (s.state() == State.ESTABLISHED) {
            if (state == Lifecycle.RUNNING) {
                dtlsCounters.sessionsClosedByPeer.increment();
            }
            removeSession(s);
        }
    }

    private void removeSession(DtlsSession s) {
        s.state(State.CLOSED);
        established.remove(s.peer(), s);
        if (s.cid() != null) {
            byCid.remove(s.cid(), s);
        }
    }

    /** Forgets a session without telling the peer (idle, evicted, replaced). */
    private void dropSession(DtlsSession s) {
        removeSession(s);
    }

    /** Closes with close_notify (when {@code notify}) and forgets the session. */
    private void closeSession(DtlsSession s, boolean notify) {
        removeSession(s);
        DTLSTransport dtls = s.dtls();
        if (notify && dtls != null) {
            OUTBOUND.set(CLOSE_NOTIFY_MARK);
            try {
                dtls.close();
            } catch (IOException e) {
                LOG.debug("close of {} failed: {}", s.peer(), e.toString());
            } finally {
                OUTBOUND.remove();
            }
        }
    }

    private static final RawData CLOSE_NOTIFY_MARK = RawData.outbound(new byte[0],
            EndpointContext.of(new InetSocketAddress(0)), null);

    private void abandon(DtlsSession s) {
        s.transport().close();
        failPending(s, new SendFailedException(Reason.STOPPED, "connector stopped during the handshake"));
    }

    /** Periodic: expires idle sessions and abandons overdue handshakes. */
    void sweep() {
        long now = clock.nanoTime();
        long idle = config.sessionIdleTimeout().toNanos();
        for (DtlsSession s : established.values()) {
            if (now - s.lastActiveNanos() > idle) {
                dropSession(s);
                dtlsCounters.sessionsExpired.increment();
                LOG.debug("session with {} expired after {} idle", s.peer(), config.sessionIdleTimeout());
            }
        }
        long limit = config.handshakeTimeout().toNanos();
        for (DtlsSession s : handshakes.values()) {
            if (now - s.createdNanos() > limit) {
                LOG.debug("handshake with {} timed out", s.peer());
                s.transport().close();
                failPending(s, new SendFailedException(Reason.IO_ERROR, "DTLS handshake timed out"));
                finishHandshake(s);
            }
        }
    }

    // ---------------------------------------------------------------- send path

    @Override
    public void send(RawData data) {
        if (state != Lifecycle.RUNNING) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.STOPPED, "connector not running"));
            return;
        }
        if (data.size() == 0 || data.size() > RecordHeader.MAX_FRAGMENT_LENGTH) {
            counters.incrementDroppedOversize();
            data.notifyFailed(new SendFailedException(Reason.OVERSIZE, data.size() + " bytes cannot be a DTLS record"));
            return;
        }
        InetSocketAddress peer = data.context().peer();
        if (connectionId(data.context()) != null) {
            // RFC 9146 §6: the connection ID names the session, wherever its peer is now; never the
            // address, which may belong to another session since the peer moved.
            DtlsSession bound = sessionByCid(data.context());
            if (bound == null) {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "the DTLS session of connection ID "
                        + connectionId(data.context()) + " is gone"));
                return;
            }
            encryptAndSend(bound, data);
            return;
        }
        DtlsSession s = established.get(peer);
        if (s == null) {
            if (config.role() == DtlsConnectorConfig.Role.SERVER) {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "no DTLS session with " + peer));
                return;
            }
            DtlsSession fresh = new DtlsSession(true, peer, clock.nanoTime());
            fresh.transport(newTransport(fresh));
            DtlsSession hs = handshakes.putIfAbsent(peer, fresh);
            boolean start = hs == null;
            if (start) {
                hs = fresh;
            }
            synchronized (hs.lock) {
                if (hs.state() == State.HANDSHAKING && !hs.transport().isClosed()) {
                    if (hs.pending().size() >= config.handshakeQueueCapacity()) {
                        counters.incrementDroppedQueueFull();
                        data.notifyFailed(new SendFailedException(Reason.QUEUE_FULL, "handshake queue of " + peer
                                + " full (" + config.handshakeQueueCapacity() + ")"));
                    } else {
                        hs.pending().add(data);
                    }
                    data = null;
                }
            }
            if (start) {
                startClientHandshake(hs);
            }
            if (data == null) {
                return;
            }
            s = established.get(peer);
            if (s == null) {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "DTLS handshake with " + peer + " failed"));
                return;
            }
        }
        encryptAndSend(s, data);
    }

    /**
     * Server: the context of the session whose connection ID {@code context} carries, at the
     * session's current address (a record routed by that ID may have moved it, RFC 9146 §6);
     * {@code context} itself when it carries none or that session is gone.
     */
    @Override
    public EndpointContext currentContext(EndpointContext context) {
        DtlsSession s = sessionByCid(context);
        return s == null ? context : s.context();
    }

    /** The server's connection ID in {@code context} (hex), or {@code null}; clients route by address. */
    private String connectionId(EndpointContext context) {
        if (config.role() != DtlsConnectorConfig.Role.SERVER) {
            return null;
        }
        String cid = context.attribute(DtlsContextKeys.CONNECTION_ID);
        return cid == null || cid.isEmpty() ? null : cid;
    }

    private DtlsSession sessionByCid(EndpointContext context) {
        String cid = connectionId(context);
        if (cid == null) {
            return null;
        }
        try {
            return byCid.get(CidKey.of(java.util.HexFormat.of().parseHex(cid)));
        } catch (IllegalArgumentException e) {
            return null; // not one of ours
        }
    }

    private void encryptAndSend(DtlsSession s, RawData data) {
        DTLSTransport dtls = s.dtls();
        byte[] plain = data.sharedBytes();
        try {
            if (plain.length > dtls.getSendLimit()) {
                counters.incrementDroppedOversize();
                data.notifyFailed(new SendFailedException(Reason.OVERSIZE, plain.length + " bytes > DTLS send limit "
                        + dtls.getSendLimit()));
                return;
            }
            OUTBOUND.set(data);
            dtls.send(plain, 0, plain.length);
        } catch (IOException e) {
            removeSession(s);
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "DTLS send failed: " + e, e));
        } finally {
            OUTBOUND.set(null);
        }
    }

    /** BC's output for one session: the datagram goes to the connector below, to the session's current peer. */
    private void sendFromSession(DtlsSession s, byte[] datagram) {
        RawData app = OUTBOUND.get();
        SendCallback callback = null;
        if (app == CLOSE_NOTIFY_MARK) {
            closeNotifiesPending.incrementAndGet();
            callback = new SendCallback() {
                @Override
                public void onSent() {
                    closeNotifiesPending.decrementAndGet();
                }

                @Override
                public void onFailed(Throwable cause) {
                    closeNotifiesPending.decrementAndGet();
                }
            };
        } else if (app != null) {
            OUTBOUND.set(null); // one record per application datagram: later records (none) are not its
            callback = new SendCallback() {
                @Override
                public void onSent() {
                    counters.incrementSent();
                    app.notifySent();
                }

                @Override
                public void onFailed(Throwable cause) {
                    counters.incrementSendErrors();
                    app.notifyFailed(cause);
                }
            };
        }
        sendCiphertext(datagram, s.plainContext(), callback);
    }

    private void sendCiphertext(byte[] datagram, EndpointContext to, SendCallback callback) {
        Connector below = transport;
        if (below == null) {
            return;
        }
        below.send(RawData.outbound(datagram, to, callback));
    }
}
