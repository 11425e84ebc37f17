package io.stagecoach.bench.jmh;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.config.DeduplicationMode;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The whole server path of one request, without a network: the encoded CON GET /benchmark bytes
 * of one of 1,000 peers go into a real {@link CoapServer} (endpoint, default layer stack,
 * deduplication, resource tree, a /benchmark resource answering 2.05 "hello world") through a
 * {@link DirectConnector}, and the encoded piggybacked ACK comes out. The protocol stage is
 * inline and the clock virtual, so one op is one request processed synchronously on the
 * benchmark thread.
 *
 * <p>Each op advances the virtual clock by {@value #STEP_MICROS} µs, so in {@code STRICT} mode
 * (EXCHANGE_LIFETIME 247 s, sweep every 10 s) about 100,000 remembered entries are live and every
 * ~4,050th op runs the sweep that drops ~4,050 expired ones: the steady state of a server at
 * ~400 req/s of virtual time, with the sweep's cost spread over the ops. In the default
 * {@code IDEMPOTENT_RELAXED} mode a GET is forgotten when its response leaves.
 *
 * <p>{@link #harnessInputOnly} measures what the benchmark itself allocates per op (the datagram
 * copy and its {@link RawData}, as a real connector does); subtract it to get the endpoint's share.
 * Results: docs/benchmarks/jmh.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ServerPathBenchmark {

    static final int PEERS = 1_000;
    static final long STEP_MICROS = 2_470;

    @Param({"IDEMPOTENT_RELAXED", "STRICT"})
    public DeduplicationMode dedup;

    private final VirtualClock clock = new VirtualClock();
    private final Duration step = Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(STEP_MICROS));
    private final EndpointContext[] peers = new EndpointContext[PEERS];
    private DirectConnector connector;
    private CoapServer server;
    private byte[] request;
    private byte[] lent;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws MessageFormatException {
        for (int p = 0; p < PEERS; p++) {
            peers[p] = EndpointContext.of(new InetSocketAddress("10.1." + (p >>> 8) + "." + (p & 0xFF), 40_000 + p));
        }
        Configuration config = CoapConfig.builder()
                .set(CoapConfig.DEDUPLICATION_MODE, dedup)
                .set(CoapConfig.DEDUP_MAX_ENTRIES, 10_000_000)
                .set(CoapConfig.DEDUP_MAX_ENTRIES_PER_SOURCE, 60_000)
                .set(CoapConfig.PROTOCOL_THREADS, 0) // inline, as on a one-core server: lent datagrams are decoded in place
                .build();
        connector = new DirectConnector(new InetSocketAddress("10.0.0.1", 5683));
        CoapEndpoint endpoint = CoapEndpoint.builder().connector(connector).config(config).scheduler(clock)
                .random(new SplittableRandom(1)).build();
        server = CoapServer.builder().endpoint(endpoint).build();
        server.add(CoapResource.named("benchmark").onGet(ex -> ex.respond(Code.CONTENT, "hello world")));
        server.start();
        request = new UdpMessageSerializer().serialize(Request.get().type(Type.CON).mid(0).token(Token.fromHex("01020304"))
                .options(OptionSet.builder().addUriPath("benchmark").build()).build());
        lent = request.clone();
        checkOneExchange();
    }

    /** Fails the trial unless the server answers a request with the piggybacked 2.05 "hello world". */
    private void checkOneExchange() throws MessageFormatException {
        serve();
        check(connector.lastSent(), 0);
        serveLent(); // the next peer, also MID 0
        check(connector.lastSent(), 0);
    }

    private static void check(RawData out, int mid) throws MessageFormatException {
        Message m = new UdpMessageParser().parse(out.bytes());
        if (m.type() != Type.ACK || !(m instanceof Response r) || r.code() != Code.CONTENT
                || !"hello world".equals(r.payloadString()) || m.mid() != mid) {
            throw new IllegalStateException("server path answered " + m + " to CON GET /benchmark");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        server.destroy();
    }

    /** One CON GET in, the encoded 2.05 ACK out; returns its size (the connector keeps the bytes). */
    @Benchmark
    public int serve() {
        int n = next++ & 0x7FFFFFFF;
        int mid = n / PEERS;
        byte[] bytes = request.clone();
        bytes[2] = (byte) (mid >>> 8);
        bytes[3] = (byte) mid;
        connector.deliver(RawData.inbound(bytes, peers[n % PEERS], clock.nanoTime()));
        clock.advance(step);
        return connector.lastSentSize();
    }

    /**
     * As {@link #serve}, with the request lent in one buffer the harness reuses (its MID patched in
     * place), the way the JDK and Netty UDP connectors deliver datagrams: no datagram copy and no
     * {@link RawData} per op, so everything this allocates is the endpoint's.
     */
    @Benchmark
    public int serveLent() {
        int n = next++ & 0x7FFFFFFF;
        int mid = n / PEERS;
        lent[2] = (byte) (mid >>> 8);
        lent[3] = (byte) mid;
        connector.lend(lent, lent.length, peers[n % PEERS], clock.nanoTime());
        clock.advance(step);
        return connector.lastSentSize();
    }

    /** The harness's own share of {@link #serve}: the datagram copy and RawData, no endpoint. */
    @Benchmark
    public RawData harnessInputOnly() {
        int n = next++ & 0x7FFFFFFF;
        int mid = n / PEERS;
        byte[] bytes = request.clone();
        bytes[2] = (byte) (mid >>> 8);
        bytes[3] = (byte) mid;
        return RawData.inbound(bytes, peers[n % PEERS], clock.nanoTime());
    }
}
