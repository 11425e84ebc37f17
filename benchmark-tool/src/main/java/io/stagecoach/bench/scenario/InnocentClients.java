package io.stagecoach.bench.scenario;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.RequestTemplate;
import io.stagecoach.bench.load.StepProgress;
import io.stagecoach.core.coap.CoapUri;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The flood scenario's innocent clients: a few UDP sockets on 127.0.0.1, each a closed loop of
 * CON GETs for {@code /benchmark} with a pause between an answer and the next request (people,
 * not a load generator). Runs on one thread, {@code bench-flood-innocent}, for the whole scenario.
 *
 * <p>Each request counts for the phase that was current when it was first sent ({@link #phase}),
 * whenever its outcome comes: 2.xx (a success, its latency from the first transmission), 5.03,
 * another code, a RST, or no answer within the timeout. A lost request or answer is retransmitted
 * with the same MID and token after {@code retransmit}, then after each doubled interval, at most
 * 4 times (RFC 7252 §4.2 with a shorter first interval than ACK_TIMEOUT, so that a phase of a few
 * seconds sees the recovery). Matching as in the load generator: a piggybacked answer by MID and
 * token, a separate one by token (a CON one is acknowledged), an empty ACK stops the
 * retransmissions.
 */
final class InnocentClients implements AutoCloseable {

    private static final int MAX_RETRANSMIT = 4;
    private static final long SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final int SERVICE_UNAVAILABLE = 5 << 5 | 3;

    /** One socket and its request in flight. */
    private static final class Client {
        final DatagramChannel channel;
        int mid;
        int token;
        boolean awaiting;
        int phase;
        long firstSent;
        long lastSent;
        long interval;
        int retransmissions;
        long nextRequest;

        Client(DatagramChannel channel, int mid, int token) {
            this.channel = channel;
            this.mid = mid;
            this.token = token;
        }
    }

    private final List<Client> clients = new ArrayList<>();
    private final RequestTemplate template;
    private final long thinkNanos;
    private final long retransmitNanos;
    private final long timeoutNanos;
    private final PhaseTally[] tallies;
    private final ByteBuffer tx = ByteBuffer.allocateDirect(2_048);
    private final ByteBuffer rx = ByteBuffer.allocateDirect(65_536);
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong retransmitted = new AtomicLong();
    private final Selector selector;
    private final Thread thread;
    private volatile int phase = -1;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * Opens the sockets and starts the loop; no request goes out before the first {@link #phase}.
     *
     * @param phases the number of phases the requests will be counted in
     */
    InnocentClients(InetSocketAddress server, int count, long thinkNanos, long retransmitNanos, long timeoutNanos,
            int phases) throws IOException {
        this.template = RequestTemplate.of(LoadSpec.defaults(CoapUri.parse("coap://"
                + server.getAddress().getHostAddress() + ":" + server.getPort() + "/benchmark")));
        this.thinkNanos = thinkNanos;
        this.retransmitNanos = retransmitNanos;
        this.timeoutNanos = timeoutNanos;
        this.tallies = new PhaseTally[phases];
        for (int i = 0; i < phases; i++) {
            tallies[i] = new PhaseTally(timeoutNanos / 1_000 * 2);
        }
        this.selector = Selector.open();
        SplittableRandom random = new SplittableRandom();
        try {
            for (int i = 0; i < count; i++) {
                DatagramChannel ch = DatagramChannel.open();
                Client c = new Client(ch, random.nextInt(0x10000), random.nextInt());
                c.nextRequest = System.nanoTime() + thinkNanos * i / count; // staggered starts
                clients.add(c);
                ch.configureBlocking(false);
                ch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                ch.connect(server);
                ch.register(selector, SelectionKey.OP_READ, clients.get(i));
            }
        } catch (IOException e) {
            closeChannels();
            throw e;
        }
        this.thread = new Thread(this::loop, "bench-flood-innocent");
        thread.setDaemon(true);
        thread.start();
    }

    /** Requests first sent from now on count for phase {@code index}. */
    void phase(int index) {
        phase = index;
        selector.wakeup();
    }

    /** Live totals over all phases, for the scenario's clock. */
    StepProgress progress() {
        return new StepProgress(sent.get(), completed.get(), errors.get(), timeouts.get(), retransmitted.get());
    }

    /**
     * What phase {@code index}'s requests came to, once none of them is outstanding (at most the
     * timeout plus a little after the phase ended).
     */
    PhaseTally.Snapshot settle(int index) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeoutNanos + TimeUnit.SECONDS.toNanos(2);
        while (tallies[index].outstanding() > 0 && System.nanoTime() - deadline < 0) {
            check();
            Thread.sleep(5);
        }
        check();
        return tallies[index].snapshot();
    }

    private void check() throws IOException {
        Throwable f = failure;
        if (f != null) {
            throw new IOException("innocent clients failed: " + f, f);
        }
    }

    private void loop() {
        try {
            long nextScan = System.nanoTime();
            while (running) {
                selector.select(key -> read((Client) key.attachment()), 1);
                long now = System.nanoTime();
                if (now - nextScan >= 0) {
                    scan(now);
                    nextScan = now + SCAN_NANOS;
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void scan(long now) throws IOException {
        int current = phase;
        for (Client c : clients) {
            if (c.awaiting) {
                if (now - c.firstSent >= timeoutNanos) {
                    finish(c, PhaseTally.Outcome.TIMEOUT, 0, now);
                    timeouts.incrementAndGet();
                } else if (c.retransmissions < MAX_RETRANSMIT && now - c.lastSent >= c.interval) {
                    c.retransmissions++;
                    c.interval *= 2;
                    c.lastSent = now;
                    write(c);
                    tallies[c.phase].retransmitted();
                    retransmitted.incrementAndGet();
                }
            } else if (current >= 0 && now - c.nextRequest >= 0) {
                c.mid = (c.mid + 1) & 0xFFFF;
                c.token++;
                c.awaiting = true;
                c.phase = current;
                c.firstSent = now;
                c.lastSent = now;
                c.interval = retransmitNanos;
                c.retransmissions = 0;
                tallies[current].sent();
                sent.incrementAndGet();
                write(c);
            }
        }
    }

    private void write(Client c) throws IOException {
        template.writeTo(tx, c.mid, c.token);
        try {
            c.channel.write(tx); // a full buffer or an ICMP error is a lost datagram: retransmitted
        } catch (IOException e) {
            // same
        }
    }

    private void read(Client c) {
        try {
            while (true) {
                rx.clear();
                if (c.channel.read(rx) <= 0) {
                    return;
                }
                rx.flip();
                onDatagram(c, System.nanoTime());
            }
        } catch (IOException e) {
            // ICMP port unreachable on a connected socket: the request is retransmitted or times out
        }
    }

    private void onDatagram(Client c, long now) throws IOException {
        int n = rx.limit();
        if (n < 4 || (rx.get(0) & 0xC0) != 0x40) {
            return;
        }
        int type = (rx.get(0) >> 4) & 0x3;
        int tkl = rx.get(0) & 0x0F;
        int code = rx.get(1) & 0xFF;
        int mid = rx.getShort(2) & 0xFFFF;
        boolean midMatches = c.awaiting && mid == c.mid;
        if (code == 0) {
            if (type == 3 && midMatches) {
                finish(c, PhaseTally.Outcome.RST, 0, now);
                errors.incrementAndGet();
            } else if (type == 2 && midMatches) {
                c.retransmissions = MAX_RETRANSMIT; // separate response follows (RFC 7252 §5.2.2)
            }
            return;
        }
        if ((code >> 5) == 0) {
            return; // a request: not for a client
        }
        boolean matches = c.awaiting && tkl == RequestTemplate.TOKEN_LENGTH && n >= 8 && rx.getInt(4) == c.token
                && (type != 2 || midMatches);
        if (type == 0) {
            tx.clear();
            tx.put((byte) (matches ? 0x60 : 0x70)).put((byte) 0).putShort((short) mid).flip();
            c.channel.write(tx);
        }
        if (!matches) {
            return;
        }
        if ((code >> 5) == 2) {
            finish(c, PhaseTally.Outcome.SUCCESS, (now - c.firstSent) / 1_000, now);
            completed.incrementAndGet();
        } else {
            finish(c, code == SERVICE_UNAVAILABLE ? PhaseTally.Outcome.UNAVAILABLE : PhaseTally.Outcome.OTHER_CODE, 0,
                    now);
            errors.incrementAndGet();
        }
    }

    private void finish(Client c, PhaseTally.Outcome outcome, long micros, long now) {
        c.awaiting = false;
        c.nextRequest = now + thinkNanos;
        tallies[c.phase].record(outcome, micros);
    }

    @Override
    public void close() {
        running = false;
        selector.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            selector.close();
        } catch (IOException e) {
            // nothing left to release
        }
        closeChannels();
    }

    private void closeChannels() {
        for (Client c : clients) {
            try {
                c.channel.close();
            } catch (IOException e) {
                // closing a datagram channel does not fail in a way we could act on
            }
        }
    }
}
