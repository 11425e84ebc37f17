package io.stagecoach.bench.cluster;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.dtls.DtlsConfig;
import io.stagecoach.elements.dtls.DtlsConnector;
import io.stagecoach.elements.dtls.DtlsConnectorConfig;
import io.stagecoach.elements.dtls.PskCredentials;
import io.stagecoach.elements.time.RealTimeScheduler;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * coaps clients with Connection IDs that watch which node answers them, for the cluster's DTLS
 * failure measurement (docs/cluster.md). Runs in the clients' namespace as a program of its own:
 *
 * <pre>
 * DtlsFailoverProbe --target 10.200.0.1:5684 --psk ID:SECRET --clients 20 --duration 20 --interval 200
 *     [--ack-timeout 2000] [--silence 5000]
 * </pre>
 *
 * Each client is a library {@link CoapClient} on an endpoint of its own with its own
 * {@link DtlsConnector} (its own port, its own session), exactly what an application gets: CON GET
 * /node, retransmitted as RFC 7252 §4.2 says with {@code --ack-timeout}, and a new handshake when
 * its records have gone unanswered for {@code --silence} ms ({@code dtls.client-silence-timeout}).
 * It waits {@code --interval} ms after each answer or failure. The clients share one timer thread;
 * each connector has its receive thread and one handshake thread. Prints one line per event,
 * times in epoch milliseconds, in {@link ProbeLog}'s format (the last field of an answer is the
 * number of sessions the client has established so far, 1 until it handshakes again):
 *
 * <pre>
 * start MILLIS
 * answer CLIENT MILLIS NODE RTT_MS SESSIONS
 * failed CLIENT MILLIS
 * end MILLIS SENT ANSWERED FAILED
 * </pre>
 */
public final class DtlsFailoverProbe {

    private DtlsFailoverProbe() {
    }

    public static void main(String[] args) throws Exception {
        String target = null;
        String psk = null;
        int clients = 20;
        double duration = 10;
        long interval = 200;
        long ackTimeout = 2000;
        long silence = DtlsConfig.CLIENT_SILENCE_TIMEOUT.defaultValue().toMillis();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--target" -> target = args[++i];
                case "--psk" -> psk = args[++i];
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--duration" -> duration = Double.parseDouble(args[++i]);
                case "--interval" -> interval = Long.parseLong(args[++i]);
                case "--ack-timeout" -> ackTimeout = Long.parseLong(args[++i]);
                case "--silence" -> silence = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (target == null || psk == null || psk.indexOf(':') < 1) {
            throw new IllegalArgumentException("--target HOST:PORT and --psk ID:SECRET are required");
        }
        PskCredentials credentials = PskCredentials.of(psk.substring(0, psk.indexOf(':')),
                psk.substring(psk.indexOf(':') + 1));
        Configuration config = CoapConfig.builder()
                .set(CoapConfig.ACK_TIMEOUT, Duration.ofMillis(ackTimeout))
                .set(CoapConfig.PROTOCOL_THREADS, 0)
                .set(DtlsConfig.CLIENT_SILENCE_TIMEOUT, Duration.ofMillis(silence))
                .set(DtlsConfig.HANDSHAKE_THREADS, 1)
                .build();
        run("coaps://" + target + "/node", credentials, config, clients, Math.round(duration * 1000), interval,
                System.out);
    }

    /** One client: its connector (for its handshake count), endpoint and CoAP client. */
    private record Client(int index, DtlsConnector connector, CoapEndpoint endpoint, CoapClient coap) {
    }

    static void run(String uri, PskCredentials credentials, Configuration config, int count, long durationMillis,
            long interval, PrintStream out) throws InterruptedException, java.io.IOException {
        SplittableRandom random = new SplittableRandom();
        List<Client> clients = new ArrayList<>();
        Counts counts = new Counts();
        try (RealTimeScheduler timer = new RealTimeScheduler(1)) {
            try {
                for (int i = 0; i < count; i++) {
                    DtlsConnector connector = DtlsConnector.builder(DtlsConnectorConfig.Role.CLIENT).apply(config)
                            .bindAddress(new InetSocketAddress(0)).pskCredentials(credentials).scheduler(timer)
                            .build();
                    CoapEndpoint endpoint = CoapEndpoint.builder().config(config).connector(connector)
                            .scheduler(timer).build();
                    endpoint.start();
                    // far beyond MAX_TRANSMIT_WAIT: the exchange's own timeout ends a request first
                    CoapClient coap = new CoapClient(uri, endpoint).timeout(Duration.ofSeconds(300));
                    clients.add(new Client(i, connector, endpoint, coap));
                }
                long start = System.currentTimeMillis();
                long end = start + durationMillis;
                out.println("start " + start);
                CountDownLatch done = new CountDownLatch(count);
                for (Client c : clients) {
                    // spread the first requests (and so the handshakes) over the interval
                    timer.schedule(() -> request(c, end, interval, timer, counts, done, out),
                            Duration.ofMillis(random.nextLong(Math.max(1, interval))));
                }
                // a request sent just before the end may still be retransmitting: wait for it
                done.await(durationMillis + 120_000, TimeUnit.MILLISECONDS);
                synchronized (out) {
                    out.println("end " + System.currentTimeMillis() + " " + counts.sent + " " + counts.answered + " "
                            + counts.failed);
                }
            } finally {
                for (Client c : clients) {
                    c.endpoint().destroy();
                }
                out.flush();
            }
        }
    }

    private static final class Counts {
        long sent;
        long answered;
        long failed;
    }

    private static void request(Client c, long end, long interval, RealTimeScheduler timer, Counts counts,
            CountDownLatch done, PrintStream out) {
        long sent = System.currentTimeMillis();
        if (sent >= end) {
            done.countDown();
            return;
        }
        synchronized (out) {
            counts.sent++;
        }
        c.coap().getAsync().whenComplete((CoapResponse r, Throwable e) -> {
            long t = System.currentTimeMillis();
            synchronized (out) {
                if (e == null && r.isSuccess()) {
                    counts.answered++;
                    out.println("answer " + c.index() + " " + t + " " + r.payloadText().trim() + " " + (t - sent) + " "
                            + c.connector().dtlsCounters().handshakesSucceeded());
                } else {
                    counts.failed++;
                    out.println("failed " + c.index() + " " + t);
                }
            }
            timer.schedule(() -> request(c, end, interval, timer, counts, done, out), Duration.ofMillis(interval));
        });
    }
}
