package io.stagecoach.bench.ccsim;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.BottleneckLink;
import io.stagecoach.elements.sim.Route;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One seeded run of a {@link Scenario}: N client endpoints and one server endpoint, the real
 * CoAP stacks, over one {@link SimulatedNetwork} on one {@link VirtualClock}, single-threaded.
 * The same seed gives the same result.
 */
public final class Replication {

    /** Response payload size, §3.2. */
    public static final int RESPONSE_PAYLOAD_BYTES = 60;

    private static final Duration STEP = Duration.ofSeconds(1);
    private static final long MAX_SIMULATED_SECONDS = 2_000_000;
    private static final int SERVER_PORT = 5683;

    private Replication() {
    }

    /**
     * Runs {@code scenario} until every client finished.
     *
     * @throws IllegalStateException if the clients do not finish within 2,000,000 simulated seconds
     */
    public static ReplicationResult run(Scenario scenario, long seed) {
        VirtualClock clock = new VirtualClock();
        SplittableRandom seeds = new SplittableRandom(seed);
        SimulatedNetwork net = new SimulatedNetwork(clock, seeds.nextLong());
        Topology t = scenario.topology();
        BottleneckLink up = t.uplink(scenario.bufferBytes());
        BottleneckLink down = t.downlink(scenario.bufferBytes());
        DropFlagLink upFlag = new DropFlagLink(up);
        InetSocketAddress serverAddress = address(0, SERVER_PORT);
        net.setRoute(Route.star(serverAddress, List.of(upFlag, t.routerServerLink()),
                List.of(t.routerServerLink(), down)));

        Configuration config = configuration(scenario);
        ServerTap serverTap = new ServerTap(net.connector(serverAddress), t.overheadBytes());
        CoapEndpoint server = CoapEndpoint.builder().connector(serverTap).scheduler(clock).executor(Runnable::run)
                .random(seeds.split()).config(config).build();
        byte[] payload = new byte[RESPONSE_PAYLOAD_BYTES];
        server.setMessageDeliverer(new LayerStack.Inbox() {
            @Override
            public void deliverRequest(Exchange exchange, Request request) {
                server.respond(exchange, Response.forRequest(request, Code.CONTENT).payload(payload).build());
            }

            @Override
            public void deliverResponse(Exchange exchange, Response response) {
            }
        });

        Request.Builder rb = Request.get().peer(EndpointContext.of(serverAddress));
        rb.options().uriPath("test");
        Request request = rb.build();

        int[] remaining = {scenario.clients()};
        List<CoapEndpoint> endpoints = new ArrayList<>();
        List<SimClient> clients = new ArrayList<>();
        List<ClientTap> taps = new ArrayList<>();
        try {
            server.start();
            endpoints.add(server);
            for (int i = 1; i <= scenario.clients(); i++) {
                ClientTap tap = new ClientTap(net.connector(address(i, SERVER_PORT)), upFlag, t.overheadBytes(),
                        scenario.maxRetransmit());
                CoapEndpoint ep = CoapEndpoint.builder().connector(tap).scheduler(clock).executor(Runnable::run)
                        .random(seeds.split()).config(config).build();
                ep.start();
                endpoints.add(ep);
                taps.add(tap);
                clients.add(new SimClient(ep, tap, request, scenario.workload(), scenario.exchanges(),
                        seeds.split(), clock, () -> remaining[0]--));
            }
            long start = clock.nanoTime();
            clients.forEach(SimClient::start);
            while (remaining[0] > 0) {
                if (clock.nanoTime() - start > MAX_SIMULATED_SECONDS * 1_000_000_000L) {
                    throw new IllegalStateException(remaining[0] + " clients unfinished after "
                            + MAX_SIMULATED_SECONDS + " simulated seconds in " + scenario);
                }
                clock.advance(STEP);
            }
            long elapsed = clock.nanoTime() - start;
            // Let request copies still queued reach the server, so that the copy accounting closes.
            clock.advance(Duration.ofNanos(scenario.bufferBytes() * 8L * 1_000_000_000L / t.upBitRate())
                    .plus(t.upDelay()).plus(t.serverDelayMax()).plus(STEP));
            return ReplicationResult.collect(clients, taps, serverTap, up, down, elapsed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            endpoints.forEach(CoapEndpoint::destroy);
        }
    }

    /**
     * The endpoint configuration of §3.3: MAX_RETRANSMIT from the scenario, backed-off RTO at most
     * 60 s, EXCHANGE_LIFETIME and MAX_TRANSMIT_WAIT (our CLIENT_TIMEOUT) recomputed as in RFC 7252
     * §4.8.2 with the cap applied; empty tokens, as libcoap's client sends by default; no
     * amplification limit.
     */
    static Configuration configuration(Scenario s) {
        Duration maxRto = Duration.ofSeconds(60);
        double upper = 2.0 * 1.5; // ACK_TIMEOUT × ACK_RANDOM_FACTOR, seconds
        double span = 0;
        for (int i = 0; i < s.maxRetransmit(); i++) {
            span += Math.min(upper * Math.pow(2, i), maxRto.toSeconds());
        }
        double wait = span + Math.min(upper * Math.pow(2, s.maxRetransmit()), maxRto.toSeconds());
        long lifetime = (long) Math.ceil(span + 2 * 100 + 2); // + 2 × MAX_LATENCY + PROCESSING_DELAY
        return CoapConfig.builder()
                .set(CoapConfig.CONGESTION_CONTROL, s.strategy().mode())
                .set(CoapConfig.MAX_RETRANSMIT, s.maxRetransmit())
                .set(CoapConfig.MAX_RTO, maxRto)
                .set(CoapConfig.EXCHANGE_LIFETIME, Duration.ofSeconds(lifetime))
                .set(CoapConfig.CLIENT_TIMEOUT, Duration.ofSeconds((long) Math.ceil(wait)))
                .set(CoapConfig.TOKEN_LENGTH, 0)
                // The paper's model: one request, one response, nobody spoofing. With the limit on,
                // a 9-byte request could not draw the response whole (RFC 7252 §11.3).
                .set(CoapConfig.AMPLIFICATION_FACTOR, 0)
                .build();
    }

    /** 10.0.x.y: index 0 is the server, 1.. the clients. */
    static InetSocketAddress address(int index, int port) {
        try {
            byte[] ip = {10, (byte) (index >> 16), (byte) (index >> 8), (byte) index};
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen for a 4-byte address
        }
    }
}
