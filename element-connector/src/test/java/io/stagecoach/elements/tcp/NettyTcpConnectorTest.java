package io.stagecoach.elements.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.ConnectionHandler;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.FramingException;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.StreamConnector;
import io.stagecoach.elements.StreamFramer;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.TestCertificates;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The connector alone, with a toy protocol: frames are one length byte and the body; the server
 * greets each connection with "hi" and echoes every frame. The tests of the data path run on every
 * Netty transport this machine has (NIO always; epoll and io_uring on Linux).
 */
class NettyTcpConnectorTest {

    /** NIO, and the native transports that load here. */
    static Stream<EventLoops.Kind> loopKinds() {
        Stream.Builder<EventLoops.Kind> kinds = Stream.builder();
        kinds.add(EventLoops.Kind.NIO);
        if (EventLoops.epollAvailable()) {
            kinds.add(EventLoops.Kind.EPOLL);
        }
        if (IoUringTransport.available()) {
            kinds.add(EventLoops.Kind.IO_URING);
        }
        return kinds.build();
    }

    /** Every connection transport on every loop kind of {@link #loopKinds()}. */
    static Stream<Arguments> transportsAndLoops() {
        return Stream.of(Transport.values()).flatMap(t -> loopKinds().map(k -> Arguments.of(t, k)));
    }

    /** {@code b} set to run on {@code kind}. */
    static TcpConnectorConfig.Builder on(EventLoops.Kind kind, TcpConnectorConfig.Builder b) {
        return b.nativeTransport(kind != EventLoops.Kind.NIO).ioUring(kind == EventLoops.Kind.IO_URING);
    }

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final TestCertificates PKI = TestCertificates.create();

    private final List<StreamConnector> started = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopAll() {
        started.forEach(StreamConnector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    /** One length byte, then the body. */
    static final class LengthFramer implements StreamFramer {
        private ByteArrayOutputStream current;
        private int need = -1;

        @Override
        public void read(ByteBuffer chunk, Consumer<byte[]> frames) throws FramingException {
            while (chunk.hasRemaining()) {
                if (need < 0) {
                    need = chunk.get() & 0xFF;
                    if (need == 0xFF) {
                        throw new FramingException("255 is refused", "bye".getBytes(StandardCharsets.US_ASCII));
                    }
                    current = new ByteArrayOutputStream();
                }
                while (need > 0 && chunk.hasRemaining()) {
                    current.write(chunk.get());
                    need--;
                }
                if (need == 0) {
                    frames.accept(current.toByteArray());
                    need = -1;
                }
            }
        }
    }

    static byte[] frame(String text, boolean lengthPrefix) {
        byte[] body = text.getBytes(StandardCharsets.US_ASCII);
        if (!lengthPrefix) {
            return body;
        }
        byte[] f = new byte[body.length + 1];
        f[0] = (byte) body.length;
        System.arraycopy(body, 0, f, 1, body.length);
        return f;
    }

    /** Records events; greets on open when {@code greeting} is set. */
    final class Events implements ConnectionHandler {
        final BlockingQueue<String> log = new LinkedBlockingQueue<>();
        final StreamConnector connector;
        final String greeting;

        Events(StreamConnector connector, String greeting) {
            this.connector = connector;
            this.greeting = greeting;
        }

        @Override
        public StreamFramer opened(EndpointContext connection) {
            assertTrue(connection.attribute(StreamConnector.CONNECTION_ID) != null);
            log.add("opened");
            if (greeting != null) {
                connector.send(RawData.outbound(frame(greeting, !connector.isMessageTransport()), connection, null));
            }
            return new LengthFramer();
        }

        /** Tells connections apart in what comes back with their frames. */
        @Override
        public Object attachment(EndpointContext connection) {
            return "attached to " + connection.attribute(StreamConnector.CONNECTION_ID);
        }

        @Override
        public void closed(EndpointContext connection) {
            log.add("closed");
        }
    }

    private NettyTcpConnector start(TcpConnectorConfig.Builder b) throws Exception {
        NettyTcpConnector c = b.workerThreads(1).build();
        started.add(c);
        return c;
    }

    private static TlsCredentials serverCredentials(Transport t) {
        return t.isSecure() ? PKI.serverCredentials(false) : null;
    }

    private static TlsCredentials clientCredentials(Transport t) {
        return t.isSecure() ? PKI.clientCredentials(false) : null;
    }

    @ParameterizedTest
    @MethodSource("transportsAndLoops")
    void greetsFirstEchoesAndReportsTheEnd(Transport t, EventLoops.Kind kind) throws Exception {
        NettyTcpConnector server = start(on(kind, TcpConnectorConfig.builder().transport(t).bindAddress(LOOPBACK)
                .credentials(serverCredentials(t))));
        Events serverEvents = new Events(server, "hi");
        server.setConnectionHandler(serverEvents);
        server.setRawDataReceiver(d -> server.send(RawData.outbound(frame(new String(d.sharedBytes(),
                StandardCharsets.US_ASCII), !server.isMessageTransport()), d.context(), null)));
        server.start();

        NettyTcpConnector client = start(on(kind, TcpConnectorConfig.builder().transport(t).client(true)
                .credentials(clientCredentials(t))));
        Events clientEvents = new Events(client, null);
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        BlockingQueue<EndpointContext> contexts = new LinkedBlockingQueue<>();
        BlockingQueue<Object> attachments = new LinkedBlockingQueue<>();
        client.setConnectionHandler(clientEvents);
        client.setRawDataReceiver(d -> {
            received.add(new String(d.sharedBytes(), StandardCharsets.US_ASCII));
            contexts.add(d.context());
            attachments.add(String.valueOf(d.attachment()));
        });
        client.start();
        assertEquals(kind, server.loopKind());
        assertEquals(kind, client.loopKind());
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getAddress().getPort());
        // sent before the connection exists: queued behind the connect and the handshakes
        client.send(RawData.outbound(frame("one", !client.isMessageTransport()), EndpointContext.of(to), null));
        client.send(RawData.outbound(frame("two", !client.isMessageTransport()), EndpointContext.of(to), null));
        assertEquals("hi", received.poll(10, TimeUnit.SECONDS));
        assertEquals("one", received.poll(10, TimeUnit.SECONDS));
        assertEquals("two", received.poll(10, TimeUnit.SECONDS));
        assertEquals(1, client.connections(), "the connection is reused");
        assertEquals(1, server.connections());
        EndpointContext first = contexts.take();
        assertEquals(to, first.peer());
        for (int i = 0; i < 3; i++) { // every frame carries what the handler attached to its connection
            assertEquals("attached to " + first.attribute(StreamConnector.CONNECTION_ID), attachments.take());
        }

        assertTrue(client.close(EndpointContext.of(to)));
        assertEquals("opened", serverEvents.log.poll(5, TimeUnit.SECONDS));
        assertEquals("closed", serverEvents.log.poll(5, TimeUnit.SECONDS));
        assertEquals("opened", clientEvents.log.poll(5, TimeUnit.SECONDS));
        assertEquals("closed", clientEvents.log.poll(5, TimeUnit.SECONDS));
        assertEquals(0, client.connections());
    }

    /**
     * Answers written during one read batch wait for the batch's end to be flushed together
     * (about 48 KiB of them here, more than one read); they arrive in order, and before the last
     * words of a stream refused later in the same batch.
     */
    @ParameterizedTest
    @MethodSource("loopKinds")
    void answersOfOneReadBatchArriveInOrderBeforeTheLastWords(EventLoops.Kind kind) throws Exception {
        NettyTcpConnector server = start(on(kind, TcpConnectorConfig.builder().bindAddress(LOOPBACK)));
        server.setConnectionHandler(new Events(server, null));
        server.setRawDataReceiver(d -> server.send(RawData.outbound(frame(new String(d.sharedBytes(),
                StandardCharsets.US_ASCII), true), d.context(), null)));
        server.start();
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        java.util.SplittableRandom random = new java.util.SplittableRandom(8323);
        for (int i = 0; sent.size() < 48 * 1024; i++) {
            String body = (i + ":" + "x".repeat(random.nextInt(0, 240)));
            sent.writeBytes(frame(body, true));
        }
        byte[] expected = sent.toByteArray();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(expected);
            out.write(new byte[] {(byte) 0xFF});
            out.flush();
            byte[] all = s.getInputStream().readAllBytes(); // ends when the server closes
            ByteArrayOutputStream want = new ByteArrayOutputStream();
            want.writeBytes(expected);
            want.writeBytes("bye".getBytes(StandardCharsets.US_ASCII));
            assertArrayEquals(want.toByteArray(), all);
        }
    }

    /**
     * Frames pipelined in one write (several frames per read, many reads), and a frame split across
     * two reads (its second half sent only once the answers to the frames before it came back),
     * arrive whole and in order on each of three connections of one event loop, whose reads share
     * the loop's buffers.
     */
    @ParameterizedTest
    @MethodSource("loopKinds")
    void pipelinedAndSplitFramesArriveWholeOnEachConnection(EventLoops.Kind kind) throws Exception {
        NettyTcpConnector server = start(on(kind, TcpConnectorConfig.builder().bindAddress(LOOPBACK)));
        server.setConnectionHandler(new Events(server, null));
        server.setRawDataReceiver(d -> server.send(RawData.outbound(frame(new String(d.sharedBytes(),
                StandardCharsets.US_ASCII), true), d.context(), null)));
        server.start();
        Socket[] sockets = new Socket[3];
        try {
            for (int k = 0; k < sockets.length; k++) {
                sockets[k] = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort());
                sockets[k].setSoTimeout(5000);
                sockets[k].setTcpNoDelay(true);
            }
            for (int round = 0; round < 3; round++) {
                for (int k = 0; k < sockets.length; k++) {
                    ByteArrayOutputStream pipelined = new ByteArrayOutputStream();
                    for (int i = 0; pipelined.size() < 6000; i++) {
                        pipelined.writeBytes(frame(k + "/" + round + "/" + i + ":" + "y".repeat(i % 200), true));
                    }
                    byte[] split = frame(k + "/" + round + ":split:" + "z".repeat(150), true);
                    OutputStream out = sockets[k].getOutputStream();
                    out.write(pipelined.toByteArray());
                    out.write(split, 0, 70);
                    out.flush();
                    byte[] back = sockets[k].getInputStream().readNBytes(pipelined.size());
                    assertArrayEquals(pipelined.toByteArray(), back, "pipelined frames of connection " + k);
                    out.write(split, 70, split.length - 70);
                    out.flush();
                    assertArrayEquals(split, sockets[k].getInputStream().readNBytes(split.length),
                            "the frame split across reads, on connection " + k);
                }
            }
        } finally {
            for (Socket so : sockets) {
                if (so != null) {
                    so.close();
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("loopKinds")
    void aRefusedStreamGetsTheLastWordsThenTheConnectionCloses(EventLoops.Kind kind) throws Exception {
        NettyTcpConnector server = start(on(kind, TcpConnectorConfig.builder().bindAddress(LOOPBACK)));
        Events events = new Events(server, null);
        server.setConnectionHandler(events);
        server.start();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort())) {
            s.getOutputStream().write(new byte[] {(byte) 0xFF, 1, 2, 3});
            s.getOutputStream().flush();
            s.setSoTimeout(5000);
            byte[] all = s.getInputStream().readAllBytes(); // ends when the server closes
            assertArrayEquals("bye".getBytes(StandardCharsets.US_ASCII), all);
        }
        assertEquals(1, server.abortedConnections());
        assertEquals("opened", events.log.poll(5, TimeUnit.SECONDS));
        assertEquals("closed", events.log.poll(5, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @MethodSource("loopKinds")
    void connectionsOverThePerAddressLimitAreClosedAtOnce(EventLoops.Kind kind) throws Exception {
        NettyTcpConnector server = start(on(kind, TcpConnectorConfig.builder().bindAddress(LOOPBACK)
                .maxConnectionsPerAddress(2)));
        server.setConnectionHandler(new Events(server, null));
        server.start();
        int port = server.getAddress().getPort();
        try (Socket a = new Socket(InetAddress.getLoopbackAddress(), port);
                Socket b = new Socket(InetAddress.getLoopbackAddress(), port);
                Socket c = new Socket(InetAddress.getLoopbackAddress(), port)) {
            c.setSoTimeout(5000);
            assertEquals(-1, c.getInputStream().read(), "the third connection is closed");
            Await.until(() -> server.connections() == 2, Duration.ofSeconds(5));
            assertEquals(2, server.connections());
            assertEquals(1, server.refusedConnections());
        }
    }

    @Test
    void aWebSocketServerAnswersOtherHttpRequestsThroughItsResponder() throws Exception {
        NettyTcpConnector server = start(TcpConnectorConfig.builder().transport(Transport.WS).bindAddress(LOOPBACK)
                .httpResponder((method, path) -> path.equals("/") ? new HttpResponder.Reply(200, "text/html",
                        "<h1>explorer</h1>".getBytes(StandardCharsets.UTF_8),
                        java.util.Map.of("Cache-Control", "no-cache")) : null));
        server.setConnectionHandler(new Events(server, null));
        server.start();
        String page = http(server, "/");
        assertTrue(page.startsWith("HTTP/1.1 200 OK"), page);
        assertTrue(page.toLowerCase(java.util.Locale.ROOT).contains("\r\ncache-control: no-cache\r\n"), page);
        assertTrue(page.endsWith("<h1>explorer</h1>"), page);
        assertTrue(http(server, "/missing").startsWith("HTTP/1.1 404"));
    }

    private static String http(NettyTcpConnector server, String path) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void ioUringAskedForWithoutANativeTransportRunsOnNio() throws Exception {
        NettyTcpConnector server = start(TcpConnectorConfig.builder().bindAddress(LOOPBACK)
                .nativeTransport(false).ioUring(true));
        server.setConnectionHandler(new Events(server, "hi"));
        server.start();
        assertEquals(EventLoops.Kind.NIO, server.loopKind());
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort())) {
            s.setSoTimeout(5000);
            byte[] greeting = s.getInputStream().readNBytes(3);
            assertArrayEquals(frame("hi", true), greeting);
        }
    }

    @Test
    void aServerNeverConnectsOutAndSendsFailWithoutAConnection() throws Exception {
        NettyTcpConnector server = start(TcpConnectorConfig.builder().bindAddress(LOOPBACK));
        server.start();
        BlockingQueue<Throwable> failures = new LinkedBlockingQueue<>();
        server.send(RawData.outbound(new byte[] {1, 2}, EndpointContext.of(new InetSocketAddress(
                InetAddress.getLoopbackAddress(), 9)), new io.stagecoach.elements.SendCallback() {
                    @Override
                    public void onSent() {
                    }

                    @Override
                    public void onFailed(Throwable cause) {
                        failures.add(cause);
                    }
                }));
        assertTrue(failures.poll(5, TimeUnit.SECONDS) != null);
        assertEquals(0, server.connections());
    }
}
