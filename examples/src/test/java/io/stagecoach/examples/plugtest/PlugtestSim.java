package io.stagecoach.examples.plugtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.sim.LinkConditions;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * The plugtest server and a client endpoint on the in-memory network and a virtual clock, protocol
 * stages inline: deterministic, no threads besides /fibonacci's. Both endpoints use 64-byte
 * blocks. Every message the client receives is recorded in {@link #received}, every request it
 * sends in {@link #sent}. Each link
 * direction takes 10 ms.
 */
final class PlugtestSim implements AutoCloseable {

    static final Duration ONE_WAY = Duration.ofMillis(10);
    static final Duration PERIOD = Duration.ofSeconds(5);
    /** 12:34:56 UTC: the observable resources show this time. */
    static final Clock WALL = Clock.fixed(Instant.parse("2026-01-01T12:34:56Z"), ZoneOffset.UTC);

    final VirtualClock clock = new VirtualClock();
    final SimulatedNetwork net = new SimulatedNetwork(clock, 7);
    final InetSocketAddress serverAddress = new InetSocketAddress("10.0.0.1", 5683);
    final CoapEndpoint serverEndpoint;
    final CoapEndpoint clientEndpoint;
    final CoapServer server;
    final Plugtest plugtest;
    final List<Message> received = new CopyOnWriteArrayList<>();
    /** Every request the client sent, retransmissions included. */
    final List<Request> sent = new CopyOnWriteArrayList<>();

    /** The secret the simulated server is started with, as an operator would for TD_COAP_OBS_04. */
    static final String OBS_RESET_SECRET = "sesame";

    PlugtestSim() throws Exception {
        this(OBS_RESET_SECRET);
    }

    /** @param obsResetSecret the /obs-reset secret, or null: the reset disabled (the server's default) */
    PlugtestSim(String obsResetSecret) throws Exception {
        net.setDefaultConditions(LinkConditions.builder().delay(ONE_WAY).build());
        Configuration config = Plugtest.blockSize(CoapConfig.builder(), Plugtest.DEFAULT_BLOCK_SIZE).build();
        serverEndpoint = CoapEndpoint.builder().connector(net.connector(serverAddress)).config(config)
                .scheduler(clock).executor(Runnable::run).random(new SplittableRandom(1)).build();
        server = CoapServer.builder().endpoint(serverEndpoint).build();
        Plugtest.Builder pb = Plugtest.builder().scheduler(clock).notifyPeriod(PERIOD).wallClock(WALL);
        if (obsResetSecret != null) {
            pb.obsResetSecret(obsResetSecret);
        }
        plugtest = pb.build().installOn(server);
        server.start();
        clientEndpoint = CoapEndpoint.builder().connector(net.connector(new InetSocketAddress("10.0.0.2", 40000)))
                .config(config).scheduler(clock).executor(Runnable::run).random(new SplittableRandom(2))
                .interceptor(new MessageInterceptor() {
                    @Override
                    public void sendRequest(Request request) {
                        sent.add(request);
                    }

                    @Override
                    public void receiveResponse(Response response) {
                        received.add(response);
                    }

                    @Override
                    public void receiveEmpty(EmptyMessage message) {
                        received.add(message);
                    }
                }).build();
        clientEndpoint.start();
    }

    /**
     * Has the server verify the client's address (RFC 9175 §2.4), as any client's first transfer
     * does: the first block of /large comes within the amplification limit with an Echo value,
     * which the client returns with its next request. Then forgets what the client received, so
     * that a test sees the server as a client it knows does. Returns this simulation.
     */
    PlugtestSim verified() {
        CoapResponse r = call(client("/large").getAsync());
        assertEquals(PlugtestText.LARGE, r.payloadText(), "first transfer, within the limit");
        received.clear();
        sent.clear();
        return this;
    }

    CoapClient client(String pathAndQuery) {
        return new CoapClient("coap://10.0.0.1:5683" + pathAndQuery, clientEndpoint);
    }

    /** Advances the virtual clock until {@code f} completes (at most {@code limit}), then returns its value. */
    <T> T await(CompletableFuture<T> f, Duration limit) {
        Duration step = ONE_WAY;
        for (Duration spent = Duration.ZERO; !f.isDone() && spent.compareTo(limit) < 0; spent = spent.plus(step)) {
            clock.advance(step);
        }
        assertTrue(f.isDone(), () -> "no answer within " + limit + " of virtual time; client "
                + clientEndpoint.counters() + " server " + serverEndpoint.counters() + "; received " + received);
        return f.join();
    }

    /** {@link #await(CompletableFuture, Duration)} with 5 s of virtual time: enough for 20 blocks. */
    CoapResponse call(CompletableFuture<CoapResponse> f) {
        return await(f, Duration.ofSeconds(5));
    }

    /** Sends {@code b(client.newRequest(method))} to {@code path} and waits for the answer. */
    CoapResponse send(String path, Code method, Function<Request.Builder, Request.Builder> b) {
        CoapClient c = client(path);
        return call(c.advancedAsync(b.apply(c.newRequest(method)).build()));
    }

    @Override
    public void close() {
        clock.advance(Duration.ofSeconds(1));
        server.destroy();
        plugtest.close();
        clientEndpoint.destroy();
    }
}
