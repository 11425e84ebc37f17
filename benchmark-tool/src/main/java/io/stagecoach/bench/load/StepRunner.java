package io.stagecoach.bench.load;

import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Runs one step of CoAPBench: opens {@code concurrency} UDP sockets, or for a {@code coap+tcp}
 * target connections (one per virtual client), spreads them over {@link LoadSpec#loops()}
 * {@link EventLoop} (or {@link TcpEventLoop}) threads, lets them run through
 * warm-up, the measured window and cool-down, closes everything and returns what was measured.
 *
 * <p>The measured window starts and ends by swapping the loops' interval recorders, so the
 * histogram holds exactly the answers received inside the window; answers to requests sent
 * during warm-up but received inside the window count (as in the papers' closed loop).
 *
 * <p>The phases are measured and waited out on a {@link StepClock}, the system clock unless a
 * test passes a virtual one; the event loops always run in real time.
 */
public final class StepRunner {

    private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LoadSpec spec;
    private final InetSocketAddress destination;
    private final RequestTemplate template;
    private final long highestMicros;
    private final SplittableRandom random = new SplittableRandom();
    private final StepClock clock;

    public StepRunner(LoadSpec spec, InetSocketAddress destination) {
        this(spec, destination, StepClock.system());
    }

    /** A runner whose phases are timed on {@code clock} (tests: a virtual clock). */
    public StepRunner(LoadSpec spec, InetSocketAddress destination, StepClock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.spec = Objects.requireNonNull(spec, "spec");
        this.destination = Objects.requireNonNull(destination, "destination");
        if (destination.isUnresolved()) {
            throw new IllegalArgumentException("unresolved destination " + destination);
        }
        this.template = RequestTemplate.of(spec);
        // Late answers are accepted up to one scan interval after the timeout: leave room.
        this.highestMicros = Math.max(1_000, spec.timeout().toNanos() / 1_000 * 2);
    }

    /** Runs a step with {@code concurrency} virtual clients; blocks for warm-up + duration + cool-down. */
    public StepResult run(int concurrency, StepListener listener) throws IOException, InterruptedException {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1, got " + concurrency);
        }
        NamedThreadFactory threads = new NamedThreadFactory("bench-loop", true);
        List<LoadLoop> loops = new ArrayList<>();
        List<Thread> loopThreads = new ArrayList<>();
        try {
            if (spec.uri().isReliableTransport()) {
                openTcpLoops(concurrency, loops);
            } else {
                openUdpLoops(concurrency, loops);
            }
            for (LoadLoop loop : loops) {
                Thread t = threads.newThread(loop);
                loopThreads.add(t);
                t.start();
            }
            return measure(concurrency, loops, listener);
        } finally {
            // The loops drain on their own (real) time; the cool-down's pause is on the step clock.
            long pauseEnd = clock.nanoTime() + spec.cooldown().toNanos();
            long coolEnd = System.nanoTime() + spec.cooldown().toNanos();
            long joinDeadline = coolEnd + TimeUnit.SECONDS.toNanos(2);
            for (LoadLoop loop : loops) {
                loop.drain(coolEnd);
            }
            for (Thread t : loopThreads) {
                t.join(Math.max(1, (joinDeadline - System.nanoTime()) / 1_000_000));
            }
            for (LoadLoop loop : loops) {
                loop.stop();
            }
            for (Thread t : loopThreads) {
                t.join(2_000);
            }
            for (LoadLoop loop : loops) {
                loop.closeClients();
            }
            threads.joinAll(Duration.ofSeconds(2));
            // The rest of the cool-down is a pause so that the server settles before the next step.
            clock.sleepUntil(pauseEnd, StepListener.Phase.COOLDOWN, () -> progress(loops));
        }
    }

    /** The first requests are spread over half the warm-up, at most one second. */
    private long rampNanos() {
        return Math.min(spec.warmup().toNanos() / 2, TimeUnit.SECONDS.toNanos(1));
    }

    private void openUdpLoops(int concurrency, List<LoadLoop> loops) throws IOException {
        List<VirtualClient> clients = new ArrayList<>(concurrency);
        try {
            openClients(concurrency, clients);
        } catch (IOException e) {
            for (VirtualClient c : clients) {
                c.channel.close();
            }
            throw e;
        }
        int n = Math.min(spec.loops(), concurrency);
        for (int i = 0; i < n; i++) {
            List<VirtualClient> share = new ArrayList<>(concurrency / n + 1);
            for (int j = i; j < clients.size(); j += n) {
                share.add(clients.get(j));
            }
            loops.add(new EventLoop(share, template, spec.timeout().toNanos(), Retransmission.of(spec.retransmit()),
                    highestMicros, rampNanos()));
        }
    }

    /** Connects every client first (the loops greet with the CSM as each one starts). */
    private void openTcpLoops(int concurrency, List<LoadLoop> loops) throws IOException {
        List<TcpVirtualClient> clients = new ArrayList<>(concurrency);
        try {
            for (int i = 0; i < concurrency; i++) {
                SocketChannel ch;
                try {
                    ch = SocketChannel.open();
                } catch (IOException e) {
                    throw new IOException("could not open socket " + (i + 1) + " of " + concurrency
                            + " (raise the open-file limit, ulimit -n): " + e.getMessage(), e);
                }
                clients.add(new TcpVirtualClient(ch, random.nextInt()));
                try {
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    ch.connect(destination);
                    ch.configureBlocking(false);
                } catch (IOException e) {
                    throw new IOException("could not connect virtual client " + (i + 1) + " to "
                            + destination + ": " + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            for (TcpVirtualClient c : clients) {
                c.channel.close();
            }
            throw e;
        }
        int n = Math.min(spec.loops(), concurrency);
        for (int i = 0; i < n; i++) {
            List<TcpVirtualClient> share = new ArrayList<>(concurrency / n + 1);
            for (int j = i; j < clients.size(); j += n) {
                share.add(clients.get(j));
            }
            loops.add(new TcpEventLoop(share, template, spec.timeout().toNanos(), highestMicros, rampNanos()));
        }
    }

    private void openClients(int concurrency, List<VirtualClient> clients) throws IOException {
        StandardProtocolFamily family = destination.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
        for (int i = 0; i < concurrency; i++) {
            DatagramChannel ch;
            try {
                ch = DatagramChannel.open(family);
            } catch (IOException e) {
                throw new IOException("could not open socket " + (i + 1) + " of " + concurrency
                        + " (raise the open-file limit, ulimit -n): " + e.getMessage(), e);
            }
            try {
                ch.configureBlocking(false);
                ch.bind(null);
                ch.connect(destination);
            } catch (IOException e) {
                ch.close();
                throw new IOException("could not bind/connect virtual client " + (i + 1) + " to "
                        + destination + ": " + e.getMessage(), e);
            }
            clients.add(new VirtualClient(ch, random.nextInt(), random.nextInt()));
        }
    }

    private StepResult measure(int concurrency, List<LoadLoop> loops, StepListener listener)
            throws IOException, InterruptedException {
        Histogram scratch = new Histogram(1, highestMicros, 3);
        Histogram step = new Histogram(1, highestMicros, 3);
        runPhase(StepListener.Phase.WARMUP, spec.warmup().toNanos(), concurrency, loops, listener, null, scratch);
        // Counters are snapshotted before the histogram is drained here and after its last drain at
        // the end, so the counter window always contains the histogram window: retransmissions of
        // an answer counted in the histogram are never cut off.
        LoopCounters.Snapshot start = totals(loops);
        drainInto(loops, scratch);
        long startNanos = clock.nanoTime();
        runPhase(StepListener.Phase.MEASURE, spec.duration().toNanos(), concurrency, loops, listener, step, scratch);
        LoopCounters.Snapshot end = totals(loops);
        long endNanos = clock.nanoTime();
        LoopCounters.Snapshot window = end.minus(start);
        return StepResult.of(concurrency, (endNanos - startNanos) / 1e9, window.timeouts(), window.errors(), step)
                .withUnavailable(window.unavailable()).withRetransmissions(window.retransmissions());
    }

    /**
     * Waits out one phase, reporting progress each second. In the measured phase each second's
     * histogram is handed to the listener and added to {@code step}.
     */
    private void runPhase(StepListener.Phase phase, long lengthNanos, int concurrency, List<LoadLoop> loops,
            StepListener listener, Histogram step, Histogram scratch) throws IOException, InterruptedException {
        long begin = clock.nanoTime();
        long end = begin + lengthNanos;
        long lastNanos = begin;
        long lastEpochMs = System.currentTimeMillis();
        LoopCounters.Snapshot last = totals(loops);
        while (true) {
            long now = clock.nanoTime();
            clock.sleepUntil(Math.min(end, now + TICK_NANOS), phase, () -> progress(loops));
            checkLoops(loops);
            now = clock.nanoTime();
            LoopCounters.Snapshot current = totals(loops);
            double seconds = Math.max(1e-9, (now - lastNanos) / 1e9);
            if (step != null) {
                drainInto(loops, scratch);
                long epochMs = System.currentTimeMillis();
                listener.onInterval(concurrency, lastEpochMs, epochMs, scratch);
                step.add(scratch);
                lastEpochMs = epochMs;
            }
            LoopCounters.Snapshot delta = current.minus(last);
            listener.onProgress(concurrency, phase, (now - begin) / 1e9, lengthNanos / 1e9,
                    delta.completed() / seconds, delta.timeouts(), delta.errors());
            last = current;
            lastNanos = now;
            if (now - end >= 0) {
                return;
            }
        }
    }

    /** Sums the loops' interval histograms since the last call into {@code into} (reset first). */
    private static void drainInto(List<LoadLoop> loops, Histogram into) {
        into.reset();
        for (LoadLoop loop : loops) {
            into.add(loop.recorder().getIntervalHistogram());
        }
    }

    private static StepProgress progress(List<LoadLoop> loops) {
        LoopCounters.Snapshot s = totals(loops);
        return new StepProgress(s.sent(), s.completed(), s.errors(), s.timeouts(), s.retransmissions());
    }

    private static LoopCounters.Snapshot totals(List<LoadLoop> loops) {
        LoopCounters.Snapshot s = LoopCounters.Snapshot.ZERO;
        for (LoadLoop loop : loops) {
            s = s.plus(loop.counters().snapshot());
        }
        return s;
    }

    private static void checkLoops(List<LoadLoop> loops) throws IOException {
        for (LoadLoop loop : loops) {
            if (loop.failure() != null) {
                throw new IOException("event loop failed: " + loop.failure(), loop.failure());
            }
        }
    }
}
