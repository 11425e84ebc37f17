package io.stagecoach.core.fuzz;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A whole server as a fuzz target sees it: a {@link CoapEndpoint} on a {@link DirectConnector},
 * a {@link VirtualClock}, the protocol and resource stages inline, and a few resources that reach
 * the interesting paths: {@code /hello}, {@code /big} (3000 bytes: Block2), {@code /echo}
 * (POST/PUT: Block1 uploads), {@code /obs} (observable), {@code /slow} (separate response after
 * one second: a CON the server retransmits) and {@code /a/b/c}.
 *
 * <p>The tables are capped far below the defaults so that one short input can reach every cap.
 */
final class FuzzedServer implements AutoCloseable {

    static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 5683);
    static final int DEDUP_MAX = 32;
    static final int DEDUP_MAX_PER_PEER = 12;
    static final int BLOCKWISE_MAX = 6;
    static final int BLOCKWISE_MAX_PER_PEER = 2;
    static final int OBSERVERS_MAX = 8;
    /**
     * Past every lifetime and the last sweep. The lifetimes are shortened (the retransmission span
     * of 93 s still fits) so that an input costs fewer virtual sweeps: more inputs per second.
     */
    static final Duration DRAIN = Duration.ofMinutes(3);

    final VirtualClock clock = new VirtualClock();
    final DirectConnector connector = new DirectConnector(SERVER);
    final CoapEndpoint endpoint;
    final CoapServer server;
    final CoapResource observable = new CoapResource("obs").setObservable(true).onGet(ex -> ex.respond("v"));

    FuzzedServer() {
        Configuration config = CoapConfig.builder()
                .set(CoapConfig.DEDUP_MAX_ENTRIES, DEDUP_MAX)
                .set(CoapConfig.DEDUP_MAX_ENTRIES_PER_SOURCE, DEDUP_MAX_PER_PEER)
                .set(CoapConfig.BLOCKWISE_MAX_TRANSFERS, BLOCKWISE_MAX)
                .set(CoapConfig.BLOCKWISE_MAX_TRANSFERS_PER_SOURCE, BLOCKWISE_MAX_PER_PEER)
                .set(CoapConfig.BLOCKWISE_MAX_RESOURCE_BODY_SIZE, 2048)
                .set(CoapConfig.EXCHANGE_LIFETIME, Duration.ofSeconds(100))
                .set(CoapConfig.NON_LIFETIME, Duration.ofSeconds(60))
                .set(CoapConfig.BLOCKWISE_STATUS_LIFETIME, Duration.ofSeconds(60))
                .set(CoapConfig.DEDUP_SWEEP_INTERVAL, Duration.ofSeconds(20))
                .set(CoapConfig.OBSERVE_MAX_OBSERVERS, OBSERVERS_MAX)
                // every notification Confirmable: an observer that never answers is dropped (RFC 7641 §4.5)
                .set(CoapConfig.OBSERVE_MAX_NON, 0)
                .build();
        endpoint = CoapEndpoint.builder().connector(connector).config(config).scheduler(clock)
                .executor(Runnable::run).random(new SplittableRandom(7)).build();
        server = CoapServer.builder().endpoint(endpoint).resourceExecutor(Runnable::run).build();
        byte[] big = new byte[3000];
        Arrays.fill(big, (byte) 'b');
        server.add(
                new CoapResource("hello").onGet(ex -> ex.respond("hello")),
                new CoapResource("big").onGet(ex -> ex.respond(Code.CONTENT, big, ContentFormat.OCTET_STREAM)),
                new CoapResource("echo").onPost(ex -> ex.respond(Code.CHANGED, ex.payload(), ContentFormat.OCTET_STREAM))
                        .onPut(ex -> ex.respond(Code.CHANGED, "" + ex.payload().length)),
                observable,
                new CoapResource("slow").onGet(ex -> {
                    ex.accept();
                    clock.schedule(() -> ex.respond("late"), Duration.ofSeconds(1));
                }),
                new CoapResource("a").add(new CoapResource("b").add(new CoapResource("c")
                        .onGet(ex -> ex.respond("deep")))));
        server.start();
    }

    /** Delivers one datagram from {@code peer} now. */
    void receive(byte[] datagram, InetSocketAddress peer) {
        connector.deliver(datagram, peer, clock.nanoTime());
    }

    @Override
    public void close() {
        server.destroy();
    }
}
