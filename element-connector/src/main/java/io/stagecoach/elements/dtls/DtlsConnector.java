package io.stagecoach.elements.dtls;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.LogThrottle;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.SendFailedException.Reason;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Clock;
import io.stagecoach.elements.time.RealTimeScheduler;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.UdpConnectorConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.DatagramSender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

// Over 500 lines: the receive routing, the established-session record path and the send path
// share the session table and its locking; the handshakes already live in Handshakes and the
// record layer in SessionRecords. A further split would pass that state through accessors.
/**
 * DTLS 1.2 (RFC 6347) with connection IDs (RFC 9146) on BouncyCastle: moves plaintext CoAP
 * datagrams between the endpoint above and encrypted records on a datagram {@link Connector}
 * below (a {@code UdpConnector} unless {@link DtlsConnectorConfig.Builder#transport} says
 * otherwise). Delivered datagrams carry the {@link DtlsContextKeys} attributes; sending needs
 * only the peer address.
 *
 * <p><b>Threads.</b> The receive thread of the connector below parses each record header itself
 * ({@link RecordHeader}), finds the session by connection ID or peer address, and for an
 * established session decrypts in place on that same thread: an established session costs no
 * thread and no hand-off. Handshakes run BouncyCastle on a bounded pool
 * ({@code stagecoach-dtls-handshake-N}) that the receive thread feeds through a queue; when one
 * ends, BouncyCastle's objects are dropped and the session continues in a compact form (keys,
 * replay window, sequence numbers: {@link Session}). Sending encrypts on the caller's thread. A
 * sweep ({@code stagecoach-timer-N}, or the given scheduler) expires idle sessions, drops the
 * cipher caches of sessions idle for {@value #COOL_AFTER_SECONDS} s, and abandons overdue
 * handshakes.
 *
 * <p><b>Denial of service.</b> A ClientHello without a valid cookie gets a stateless
 * HelloVerifyRequest ({@link CookieVerifier}, compatible with BC's {@code DTLSVerifier}; never
 * larger than the ClientHello), within a budget of {@code dtls.max-hello-rate} per second and,
 * while established sessions send records, {@code dtls.hello-work-share} of the receive time. Only a returned cookie admits a
 * handshake, within {@code dtls.max-handshakes} and {@code dtls.max-handshakes-per-source} (per
 * IPv4 address or IPv6 /64). Records are screened before BC sees them (see {@code docs/dtls.md}).
 */
public final class DtlsConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(DtlsConnector.class);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);
    /** An idle session's cipher engines and context are dropped after this long. */
    static final int COOL_AFTER_SECONDS = 10;
    /** How long a session keeps its final handshake flight for the peer's possible repetition. */
    private static final long FLIGHT_KEPT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private enum Lifecycle { NEW, RUNNING, STOPPED, DESTROYED }

    private final DtlsConnectorConfig config;
    private final ConnectorCounters counters = new ConnectorCounters();
    private final DtlsCounters dtlsCounters = new DtlsCounters();
    private final Object lifecycleLock = new Object();
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final DtlsCrypto crypto = new DtlsCrypto(random, dtlsCounters.datagramsMalformed::increment);
    private final CidGenerator cids;
    private final SessionTable table;
    private final SessionRecords records;
    private final Handshakes handshakes;
    private final HelloBudget helloBudget;
    private final LogThrottle receiverLog;
    private final AtomicInteger closeNotifiesPending = new AtomicInteger();
    private final SendCallback countSent = new SendCallback() {
        @Override
        public void onSent() {
            counters.incrementSent();
        }

        @Override
        public void onFailed(Throwable cause) {
            counters.incrementSendErrors();
        }
    };

    private volatile Lifecycle state = Lifecycle.NEW;
    private volatile RawDataReceiver receiver = data -> { };
    private volatile Connector transport;
    private volatile CookieVerifier cookies;
    private NamedThreadFactory handshakeThreads;
    private volatile ThreadPoolExecutor handshakePool;
    private RealTimeScheduler ownTimer;
    private Cancellable sweep;

    DtlsConnector(DtlsConnectorConfig config) {
        this.config = config;
        this.clock = config.clock();
        this.receiverLog = new LogThrottle(clock, Duration.ofSeconds(10));
        BcCredentials credentials;
        try {
            credentials = config.certificateCredentials() == null ? null
                    : new BcCredentials(crypto, config.certificateCredentials());
        } catch (IOException e) {
            throw new IllegalArgumentException("unusable certificate credentials: " + e.getMessage(), e);
        }
        this.cids = new CidGenerator(config.role() == DtlsConnectorConfig.Role.SERVER ? config.cidLength() : 0,
                config.nodeId(), random);
        this.table = new SessionTable(config.maxSessions());
        this.records = new SessionRecords(this, dtlsCounters, table, cids.length());
        this.handshakes = new Handshakes(this, config, dtlsCounters, crypto, credentials, cids, table, records);
        this.helloBudget = new HelloBudget(config.maxHelloRate(), config.maxHelloRatePerSource(),
                config.helloWorkShare(), clock);
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
        return table.size();
    }

    /** Handshakes in progress now. */
    public int handshakeCount() {
        return handshakes.count();
    }

    /** The context of the established session with {@code peer}, or {@code null}. */
    public EndpointContext sessionContext(InetSocketAddress peer) {
        Session s = table.get(peer);
        return s == null ? null : s.context();
    }

    boolean isRunning() {
        return state == Lifecycle.RUNNING;
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
            below.setRawDataReceiver(new Inbound());
            cookies = new CookieVerifier(random);
            handshakeThreads = new NamedThreadFactory("dtls-handshake", true);
            // BC blocks a thread per handshake while it waits for the peer's next flight, up to the
            // handshake timeout when the peer is gone. A queue in front of a few threads would let a
            // handful of abandoned handshakes stall every other one for that long (and the waiting
            // clients give up, abandoning more); so every admitted handshake gets a thread at once.
            // The limiter admits at most maxHandshakes; the slack above it covers threads that have
            // released their slot and not yet returned to the pool.
            int maxThreads = (int) Math.min(Integer.MAX_VALUE,
                    Math.max(config.handshakeThreads(), 2L * config.maxHandshakes()));
            ThreadPoolExecutor pool = new ThreadPoolExecutor(config.handshakeThreads(), maxThreads, 30,
                    TimeUnit.SECONDS, new SynchronousQueue<>(), handshakeThreads);
            pool.allowCoreThreadTimeOut(true);
            handshakePool = pool;
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
            if (sweep != null) {
                sweep.cancel();
                sweep = null;
            }
            SendCallback left = new SendCallback() {
                @Override
                public void onSent() {
                    closeNotifiesPending.decrementAndGet();
                }

                @Override
                public void onFailed(Throwable cause) {
                    closeNotifiesPending.decrementAndGet();
                }
            };
            for (Session s : table.clear()) {
                s.close();
                closeNotifiesPending.incrementAndGet();
                records.closeNotify(s, left);
            }
            state = Lifecycle.STOPPED;
            handshakes.abandonAll();
            awaitCloseNotifies();
            shutdownPool();
            if (ownTimer != null) {
                ownTimer.close();
                ownTimer = null;
            }
            transport.stop();
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
        ThreadPoolExecutor pool = handshakePool;
        if (pool != null) {
            handshakePool = null;
            pool.shutdownNow();
            try {
                pool.awaitTermination(JOIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!handshakeThreads.joinAll(JOIN_TIMEOUT)) {
                LOG.warn("handshake threads still alive after stop: {}", handshakeThreads.liveThreads());
            }
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

    /** Runs {@code task} on the handshake pool; false if stopped. */
    boolean submit(Runnable task) {
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

    /** Periodic: expires and cools idle sessions, abandons overdue handshakes. */
    void sweep() {
        long now = clock.nanoTime();
        long idle = config.sessionIdleTimeout().toNanos();
        long cool = Math.min(idle, TimeUnit.SECONDS.toNanos(COOL_AFTER_SECONDS));
        List<Session> expired = new ArrayList<>();
        table.sweep(now, idle, cool, FLIGHT_KEPT_NANOS, expired);
        for (Session s : expired) {
            s.close();
            dtlsCounters.sessionsExpired.increment();
            LOG.debug("session with {} expired after {} idle", s.peer(), config.sessionIdleTimeout());
        }
        handshakes.sweep(now);
    }

    // ---------------------------------------------------------------- receive path

    /**
     * The receiver given to the connector below. A datagram lent by a UDP connector meets the
     * hello budget in the connector's buffer, so a flooded hello beyond it is dropped before its
     * bytes are copied or any object is made for it.
     */
    private final class Inbound implements RawDataReceiver {
        @Override
        public void receiveData(RawData raw) {
            byte[] b = raw.sharedBytes();
            int hello = admitHello(b, 0, b.length, raw.context().peer(), raw.receiveNanos());
            if (hello != HELLO_DROPPED) {
                receiveRecords(raw, hello == HELLO_ADMITTED);
            }
        }

        @Override
        public void receiveDatagram(byte[] buffer, int offset, int length, EndpointContext sender, long receiveNanos) {
            int hello = admitHello(buffer, offset, length, sender.peer(), receiveNanos);
            if (hello != HELLO_DROPPED) {
                receiveRecords(RawData.inbound(Arrays.copyOfRange(buffer, offset, offset + length), sender,
                        receiveNanos), hello == HELLO_ADMITTED);
            }
        }
    }

    private static final int NOT_A_HELLO = 0;
    private static final int HELLO_ADMITTED = 1;
    private static final int HELLO_DROPPED = 2;

    /**
     * A hello for no running handshake meets the hello budget before any other work (a first
     * hello also its source port's turn): a flood beyond it costs this test and the counter, not
     * the screen. The budget reads the time the datagram was received (the connector below runs on
     * this connector's clock) instead of the clock again.
     */
    private int admitHello(byte[] b, int off, int length, InetSocketAddress source, long receiveNanos) {
        if (config.role() != DtlsConnectorConfig.Role.SERVER || !DatagramScreen.mayBeClientHello(b, off, length)
                || handshakes.get(source) != null) {
            return NOT_A_HELLO;
        }
        int firstHelloPort = DatagramScreen.carriesCookie(b, off, length) ? -1 : source.getPort();
        long random = firstHelloPort < 0 ? 0 : DatagramScreen.helloRandom(b, off, length);
        if (!helloBudget.tryAcquire(source.getAddress(), firstHelloPort, random, receiveNanos)) {
            dtlsCounters.hellosDropped.increment();
            return HELLO_DROPPED;
        }
        return HELLO_ADMITTED;
    }

    /** Called on the receive thread of the connector below, once per ciphertext datagram. */
    private void receiveRecords(RawData raw, boolean helloAdmitted) {
        byte[] b = raw.sharedBytes();
        InetSocketAddress source = raw.context().peer();
        DatagramScreen first = DatagramScreen.ofThisThread();
        try {
            first.screen(b, cids.length());
        } catch (MalformedRecordException e) {
            dtlsCounters.datagramsMalformed.increment();
            LOG.trace("dropped datagram from {}: {}", source, e.getMessage());
            return;
        }
        long nanos = raw.receiveNanos();
        if (first.cidOffset >= 0) {
            CidKey cid = CidKey.of(b, first.cidOffset, cids.length());
            Session s = table.byCid(cid);
            if (s != null && deliver(s, b, source, nanos)) {
                return;
            }
            // the peer's Finished of a handshake still running carries the CID already
            DtlsSession hs = handshakes.get(source);
            if (hs != null && handshakes.offer(hs, b, first.pskIdentity)) {
                return;
            }
            // The handshake may have completed since the lookup above: this is then the session's
            // first record (the session is published before the handshake leaves the table).
            Session now = table.byCid(cid);
            if (now != null && now != s && deliver(now, b, source, nanos)) {
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
                handshakes.offer(hs, b, first.pskIdentity);
            } else if (config.role() == DtlsConnectorConfig.Role.SERVER) {
                clientHello(b, first, source, first.helloVerifyRequest, helloAdmitted);
            }
            return;
        }
        Session s = table.get(source);
        if (s != null && first.epoch > 0 && deliver(s, b, source, nanos)) {
            return;
        }
        DtlsSession hs = handshakes.get(source);
        if (hs != null && handshakes.offer(hs, b, first.pskIdentity)) {
            return;
        }
        // No handshake takes it: an established session reads its epoch's records (the peer's
        // repeated final flight starts with epoch-0 records but ends with an encrypted Finished),
        // also one established since the lookup above.
        Session now = table.get(source);
        if (now != null && first.maxEpoch > 0 && deliver(now, b, source, nanos)) {
            return;
        }
        if (s == null && hs == null && now == null) {
            dtlsCounters.datagramsNoSession.increment();
        }
    }

    /** An established session's datagram: decrypted here, the plaintext handed up. */
    boolean deliver(Session s, byte[] b, InetSocketAddress source, long receiveNanos) {
        return records.receive(s, b, source, receiveNanos, clock.nanoTime(), this::handUp);
    }

    private void handUp(RawData d) {
        helloBudget.recordArrived(d.receiveNanos());
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

    /**
     * A ClientHello from an address with no handshake in progress: within the hello budget (met
     * already when {@code admitted}), the stateless cookie check on the body the screen found;
     * only a valid cookie creates state (RFC 6347 §4.2.1). The check's time is charged to the
     * budget, which limits it while established sessions send records.
     */
    private void clientHello(byte[] b, DatagramScreen first, InetSocketAddress source, byte[] hvr, boolean admitted) {
        CookieVerifier v = cookies;
        if (v == null || state != Lifecycle.RUNNING) {
            return;
        }
        if (!admitted && !helloBudget.tryAcquire(source.getAddress())) {
            dtlsCounters.hellosDropped.increment();
            return;
        }
        long started = clock.nanoTime();
        CookieVerifier.Verdict verdict = first.helloBody < 0 ? CookieVerifier.Verdict.UNUSUAL
                : v.check(b, first.helloBody, first.helloBodyLength, source, hvr);
        switch (verdict) {
            case ANSWER:
                dtlsCounters.helloVerifyRequestsSent.increment();
                sendCiphertext(Arrays.copyOf(hvr, CookieVerifier.HVR_LENGTH), EndpointContext.of(source), null);
                break;
            case DROP:
                dtlsCounters.datagramsMalformed.increment();
                break;
            default:
                verifyWithBouncyCastle(v, b, source);
                break;
        }
        helloBudget.charge(clock.nanoTime() - started);
    }

    /** A hello with a valid cookie, or one our parser left to BC: BC's verifier decides and answers. */
    private void verifyWithBouncyCastle(CookieVerifier v, byte[] b, InetSocketAddress source) {
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
            request = v.verifyWithBouncyCastle(CookieVerifier.clientId(source), b, hvr);
        } catch (RuntimeException e) {
            // BC 1.84 parses the hello with unchecked exceptions for some bad fields (a reserved
            // client_version such as {254, 254} throws IllegalArgumentException): a malformed
            // datagram, dropped like the others (found by DtlsServerFuzzTest)
            dtlsCounters.datagramsMalformed.increment();
            LOG.trace("dropped ClientHello from {}: {}", source, e.toString());
            return;
        }
        if (request != null) {
            helloBudget.cookieReturned(source.getAddress(), source.getPort());
            handshakes.admit(source, request);
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
            Session bound = sessionByCid(data.context());
            if (bound == null) {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "the DTLS session of connection ID "
                        + connectionId(data.context()) + " is gone"));
                return;
            }
            encryptAndSend(bound, data);
            return;
        }
        Session s = table.get(peer);
        if (s != null && s.isClient() && abandonSilent(s)) {
            s = null;
        }
        if (s == null) {
            if (config.role() == DtlsConnectorConfig.Role.SERVER) {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "no DTLS session with " + peer));
                return;
            }
            if (handshakes.queue(peer, data) == null) {
                return;
            }
            s = table.get(peer);
            if (s == null) {
                counters.incrementSendErrors();
                data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "DTLS handshake with " + peer + " failed"));
                return;
            }
        }
        encryptAndSend(s, data);
    }

    /**
     * Client: drops {@code s} when its records have gone unanswered for
     * {@link DtlsConnectorConfig#clientSilenceTimeout()}, so that this send starts a new handshake.
     * A server that lost the session (it died, restarted, or a balancer now sends our records to
     * another node, which drops them as unknown, RFC 9146 §6) never says so: silence is the only
     * sign. Records are a sign only while they keep coming: after a pause of more than
     * {@link #silenceWindow} since the first unanswered one (which was an ACK or the last word
     * before an idle time), the count starts again. A CoAP request's retransmissions (RFC 7252
     * §4.2: after 2–3 s, then doubling) cross the timeout within that window.
     */
    private boolean abandonSilent(Session s) {
        long timeout = config.clientSilenceTimeout().toNanos();
        if (timeout == 0 || !s.silentFor(clock.nanoTime(), timeout, silenceWindow(timeout))) {
            return false;
        }
        table.remove(s);
        s.close();
        LOG.debug("session with {} unanswered for {}: handshaking again", s.peer(), config.clientSilenceTimeout());
        return true;
    }

    /** Three times the silence timeout, at least 10 s. */
    static long silenceWindow(long timeoutNanos) {
        return Math.max(3 * timeoutNanos, TimeUnit.SECONDS.toNanos(10));
    }

    /**
     * Server: the context of the session whose connection ID {@code context} carries, at the
     * session's current address (a record routed by that ID may have moved it, RFC 9146 §6);
     * {@code context} itself when it carries none or that session is gone.
     */
    @Override
    public EndpointContext currentContext(EndpointContext context) {
        Session s = sessionByCid(context);
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

    private Session sessionByCid(EndpointContext context) {
        String cid = connectionId(context);
        if (cid == null) {
            return null;
        }
        try {
            return table.byCid(CidKey.of(HexFormat.of().parseHex(cid)));
        } catch (IllegalArgumentException e) {
            return null; // not one of ours
        }
    }

    void encryptAndSend(Session s, RawData data) {
        byte[] plain = data.sharedBytes();
        if (plain.length > s.sendLimit()) {
            counters.incrementDroppedOversize();
            data.notifyFailed(new SendFailedException(Reason.OVERSIZE, plain.length + " bytes > DTLS send limit "
                    + s.sendLimit()));
            return;
        }
        if (s.isClosed()) {
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "DTLS session with " + s.peer() + " closed"));
            return;
        }
        byte[] record;
        try {
            record = s.seal(RecordHeader.APPLICATION_DATA, plain, 0, plain.length);
        } catch (IllegalStateException e) {
            // sequence numbers exhausted: the session ends, a new handshake follows on the next send
            table.remove(s);
            s.close();
            counters.incrementSendErrors();
            data.notifyFailed(new SendFailedException(Reason.IO_ERROR, "DTLS send failed: " + e.getMessage(), e));
            return;
        }
        if (s.isClient()) {
            s.sent(clock.nanoTime());
        }
        SendCallback app = data.callback();
        sendCiphertext(record, s.plainContext(), app == null ? countSent : new SendCallback() {
            @Override
            public void onSent() {
                counters.incrementSent();
                data.notifySent();
            }

            @Override
            public void onFailed(Throwable cause) {
                counters.incrementSendErrors();
                data.notifyFailed(cause);
            }
        });
    }

    /**
     * A datagram of a handshake flight, from a handshake thread: written on that thread where the
     * connector below can ({@link Connector#sendDirect}: the JDK and the Netty epoll UDP
     * connectors), since the peer waits for it and a hand-off to the connector's sender thread or
     * event loop costs a thread switch per flight on a single core ({@code docs/benchmarks/dtls.md}).
     */
    void sendFlight(byte[] datagram, EndpointContext to) {
        Connector below = transport;
        if (below != null) {
            below.sendDirect(RawData.outbound(datagram, to, null));
        }
    }

    /** A ciphertext datagram to the connector below. */
    void sendCiphertext(byte[] datagram, EndpointContext to, SendCallback callback) {
        Connector below = transport;
        if (below == null) {
            return;
        }
        below.send(RawData.outbound(datagram, to, callback));
    }
}
