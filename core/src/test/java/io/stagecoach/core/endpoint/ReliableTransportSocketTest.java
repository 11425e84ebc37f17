package io.stagecoach.core.endpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.TestCertificates;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.TcpConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Our client against our server over real sockets, on each RFC 8323 transport. */
class ReliableTransportSocketTest {

    private static final TestCertificates PKI = TestCertificates.create();
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final Configuration CONFIG = CoapConfig.builder().set(TcpConfig.WORKER_THREADS, 1).build();

    private CoapServer server;
    private CoapClient client;
    private final CoapResource obs = new CoapResource("obs");
    private final AtomicReference<byte[]> uploaded = new AtomicReference<>();
    private volatile int state;

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private String start(Transport t) {
        var b = CoapServer.builder().config(CONFIG);
        switch (t) {
            case TCP -> b.tcp(LOOPBACK);
            case TLS -> b.tls(LOOPBACK, PKI.serverCredentials(false));
            case WS -> b.ws(LOOPBACK);
            case WSS -> b.wss(LOOPBACK, PKI.serverCredentials(false));
            default -> throw new IllegalArgumentException();
        }
        server = b.build();
        server.add(CoapResource.named("hello").onGet(x -> x.respond("hello " + x.request().peer().peer().getAddress()
                .getHostAddress())));
        server.add(CoapResource.named("big").onGet(x -> x.respond(Code.CONTENT, body(5000), ContentFormat.OCTET_STREAM)));
        server.add(CoapResource.named("upload").onPost(x -> {
            uploaded.set(x.payload());
            x.respond(Code.CHANGED, String.valueOf(x.payload().length));
        }));
        obs.setObservable(true);
        obs.onGet(x -> x.respond("state " + state));
        server.add(obs);
        server.start();
        int port = server.endpoints().get(0).address().getPort();
        return t.scheme() + "://localhost:" + port;
    }

    private void connect(String uri) {
        client = CoapClient.builder(uri).config(CONFIG).tls(PKI.clientCredentials(false))
                .timeout(Duration.ofSeconds(10)).build();
    }

    static byte[] body(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void getPostBlockwiseObserveAndTheRelationEndsWithTheConnection(Transport t) throws Exception {
        String base = start(t);
        connect(base + "/hello");
        assertEquals(t.scheme(), client.endpoint().scheme());
        CoapResponse hello = client.get();
        assertEquals(Code.CONTENT, hello.code());
        assertEquals("hello 127.0.0.1", hello.payloadText());
        assertTrue(client.ping(Duration.ofSeconds(5)), "Ping answered by Pong");

        client.uri(base + "/big");
        CoapResponse big = client.get();
        assertArrayEquals(body(5000), big.payload(), "Block2 over " + t);

        client.uri(base + "/upload");
        CoapResponse up = client.post(body(3000), ContentFormat.OCTET_STREAM);
        assertEquals(Code.CHANGED, up.code());
        assertEquals("3000", up.payloadText());
        assertArrayEquals(body(3000), uploaded.get(), "Block1 over " + t);

        client.uri(base + "/obs");
        BlockingQueue<String> notifications = new LinkedBlockingQueue<>();
        CoapObserveRelation relation = client.observe(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                notifications.add(response.payloadText() + " #" + response.options().observe());
            }

            @Override
            public void onError(Throwable failure) {
                notifications.add("error " + failure);
            }
        });
        assertTrue(notifications.poll(10, TimeUnit.SECONDS).startsWith("state 0 #"));
        for (int i = 1; i <= 3; i++) {
            state = i;
            obs.changed();
            String n = notifications.poll(10, TimeUnit.SECONDS);
            assertTrue(n != null && n.startsWith("state " + i + " #"), n);
            assertTrue(!n.endsWith("#-1"), "notifications carry a sequence number: " + n);
        }
        assertEquals(1, obs.observerCount());
        assertEquals(1, server.endpoints().get(0).observeRelations());
        assertTrue(!relation.isCanceled());

        client.close(); // the client's endpoint goes, and its connection with it
        client = null;
        Await.until(() -> obs.observerCount() == 0 && server.endpoints().get(0).observeRelations() == 0,
                Duration.ofSeconds(10));
        assertEquals(0, obs.observerCount(), "the relation ends when its connection closes");
        assertEquals(0, server.endpoints().get(0).observeRelations());
        assertEquals(0, server.endpoints().get(0).openExchanges());
    }

    @Test
    void oneServerServesTheSameTreeOnEveryTransportAndUdp() throws Exception {
        server = CoapServer.builder().config(CONFIG).udp(LOOPBACK).tcp(LOOPBACK).tls(LOOPBACK, PKI.serverCredentials(false))
                .ws(LOOPBACK).build();
        server.add(CoapResource.named("hello").onGet(x -> x.respond("hi")));
        server.start();
        String[] schemes = {"coap", "coap+tcp", "coaps+tcp", "coap+ws"};
        for (int i = 0; i < schemes.length; i++) {
            assertEquals(schemes[i], server.endpoints().get(i).scheme());
            try (CoapClient c = CoapClient.builder(schemes[i] + "://127.0.0.1:" + server.endpoints().get(i).address()
                    .getPort() + "/hello").config(CONFIG).tls(PKI.clientCredentials(false)).timeout(Duration.ofSeconds(10))
                    .build()) {
                assertEquals("hi", c.get().payloadText(), schemes[i]);
            }
        }
    }

    @Test
    void aClientCertificateIsRequiredWhenTheServerTrustsACa() throws Exception {
        server = CoapServer.builder().config(CONFIG).tls(LOOPBACK, PKI.serverCredentials(true)).build();
        server.add(CoapResource.named("who").onGet(x -> x.respond("ok")));
        server.start();
        String uri = "coaps+tcp://localhost:" + server.endpoints().get(0).address().getPort() + "/who";
        try (CoapClient anonymous = CoapClient.builder(uri).config(CONFIG).tls(PKI.clientCredentials(false))
                .timeout(Duration.ofSeconds(5)).build()) {
            assertThrows(RuntimeException.class, anonymous::get);
        }
        client = CoapClient.builder(uri).config(CONFIG).tls(PKI.clientCredentials(true))
                .timeout(Duration.ofSeconds(10)).build();
        assertEquals("ok", client.get().payloadText());
    }

    /** Reads whole frames from a raw socket (TCP framing). */
    private static final class RawPeer implements AutoCloseable {
        final java.net.Socket socket;
        final io.stagecoach.core.codec.TcpFrameSplitter splitter = new io.stagecoach.core.codec.TcpFrameSplitter(1 << 20);
        final io.stagecoach.core.codec.TcpMessageParser parser = new io.stagecoach.core.codec.TcpMessageParser(
                io.stagecoach.core.codec.ReliableFraming.TCP, 1 << 20);
        final io.stagecoach.core.codec.TcpMessageSerializer serializer = new io.stagecoach.core.codec.TcpMessageSerializer(
                io.stagecoach.core.codec.ReliableFraming.TCP);

        RawPeer(int port) throws Exception {
            socket = new java.net.Socket(InetAddress.getLoopbackAddress(), port);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
        }

        /** The next frame, or {@code null} at the end of the stream. */
        byte[] next() throws Exception {
            while (true) {
                int b = socket.getInputStream().read();
                if (b < 0) {
                    return null;
                }
                byte[] frame = splitter.next(new byte[] {(byte) b}, 0, 1);
                if (frame != null) {
                    return frame;
                }
            }
        }

        /**
         * Whether the server has closed: end of stream, or a reset. The server closes right after
         * its Abort (RFC 8323 §5.6) while the hostile frame's last bytes may still be unread in its
         * socket or not yet arrived; TCP then answers with RST instead of FIN (RFC 1122
         * §4.2.2.13), which is still the close the test waits for.
         */
        boolean closed() throws Exception {
            try {
                return socket.getInputStream().read() < 0;
            } catch (java.net.SocketException reset) {
                return true;
            }
        }

        void write(byte[] bytes) throws Exception {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        }

        @Override
        public void close() throws Exception {
            socket.close();
        }
    }

    @Test
    void theConnectorsFramingPathTakesRandomChunksAndAbortsHostileLengths() throws Exception {
        server = CoapServer.builder().config(CONFIG).tcp(LOOPBACK).build();
        server.add(CoapResource.named("hello").onGet(x -> x.respond("hi")));
        server.start();
        int port = server.endpoints().get(0).address().getPort();
        java.util.SplittableRandom random = new java.util.SplittableRandom(8323);
        for (int round = 0; round < 20; round++) {
            try (RawPeer p = new RawPeer(port)) {
                assertEquals(Code.CSM, p.parser.parseSignal(p.next()).code());
                java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
                stream.writeBytes(p.serializer.serialize(io.stagecoach.core.coap.SignalingMessage.csm(1152, false)));
                int requests = random.nextInt(1, 5);
                for (int i = 0; i < requests; i++) {
                    stream.writeBytes(p.serializer.serialize(io.stagecoach.core.coap.Request.get()
                            .token(io.stagecoach.core.coap.Token.ofLong(i + 1))
                            .options(o -> o.uriPath(java.util.List.of("hello"))).build()));
                }
                boolean hostile = round % 2 == 1;
                if (hostile) {
                    int ext = random.nextInt(1 << 20, Integer.MAX_VALUE);
                    stream.writeBytes(new byte[] {(byte) 0xF0, (byte) (ext >>> 24), (byte) (ext >>> 16),
                        (byte) (ext >>> 8), (byte) ext, 0x01, 0x02});
                }
                byte[] all = stream.toByteArray();
                for (int off = 0; off < all.length; ) {
                    int n = Math.min(all.length - off, random.nextInt(1, 9));
                    p.write(Arrays.copyOfRange(all, off, off + n));
                    off += n;
                }
                for (int i = 0; i < requests; i++) {
                    byte[] f = p.next();
                    assertEquals(io.stagecoach.core.coap.Token.ofLong(i + 1), p.parser.parseMessage(f).token());
                }
                if (hostile) {
                    io.stagecoach.core.coap.SignalingMessage abort = p.parser.parseSignal(p.next());
                    assertEquals(Code.ABORT, abort.code());
                    assertTrue(!abort.diagnostic().isEmpty());
                    assertTrue(p.closed(), "closed after the Abort");
                }
            }
        }
    }

    @Test
    void aClientEndpointOfAnotherSchemeIsRefused() throws Exception {
        server = CoapServer.builder().config(CONFIG).tcp(LOOPBACK).build();
        server.start();
        assertThrows(IllegalArgumentException.class,
                () -> new CoapClient("coap://127.0.0.1/x", server.endpoints().get(0)));
        assertEquals(Arrays.asList("coap+tcp"), Arrays.asList(server.endpoints().get(0).scheme()));
    }
}
