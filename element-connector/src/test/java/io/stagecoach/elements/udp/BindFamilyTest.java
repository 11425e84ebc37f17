package io.stagecoach.elements.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.SendFailedException;
import io.stagecoach.elements.netty.NettyUdpConnector;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link BindFamily}: each connector opens the socket of its bind address's family, as libcoap
 * does, except that either wildcard means every interface, as in the JDK. A specific IPv4 address
 * is an IPv4 socket; {@code [::]}, the default, and {@code 0.0.0.0} are dual-stack, and the IPv4 peers it serves appear as IPv4 addresses, never IPv4-mapped IPv6 ones.
 * The kernel's own tables ({@code /proc/self/net/udp}, {@code udp6}) say which socket was opened.
 */
@Timeout(30)
class BindFamilyTest {

    private static final InetAddress V4_LOOPBACK = address("127.0.0.1");

    private final List<Connector> opened = new ArrayList<>();

    enum Kind {
        JDK(c -> c.newBuilder().build()),
        NETTY(NettyUdpConnector::new),
        NETTY_NIO(c -> new NettyUdpConnector(c, false));

        final Function<UdpConnectorConfig, Connector> factory;

        Kind(Function<UdpConnectorConfig, Connector> factory) {
            this.factory = factory;
        }
    }

    @AfterEach
    void destroyAll() {
        opened.forEach(Connector::destroy);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    private Connector start(Kind kind, InetSocketAddress bind, BlockingQueue<InetSocketAddress> peers) throws IOException {
        Connector c = kind.factory.apply(UdpConnectorConfig.builder().bindAddress(bind).nettyChannels(2).buildConfig());
        opened.add(c);
        // answers every datagram, so the client sees the reply path work on this socket too
        c.setRawDataReceiver(d -> {
            peers.add(d.context().peer());
            c.send(RawData.outbound(d.bytes(), d.context(), null));
        });
        c.start();
        return c;
    }

    @Test
    void theDefaultIsEveryInterfaceDualStack() throws IOException {
        InetSocketAddress any = BindFamily.everyInterface(0);
        assertTrue(any.getAddress().isAnyLocalAddress());
        // this machine has IPv6 (the JDK opens an IPv6 channel), so the default is [::], not 0.0.0.0
        try (DatagramChannel v6 = DatagramChannel.open(StandardProtocolFamily.INET6)) {
            assertInstanceOf(Inet6Address.class, any.getAddress());
        }
        assertEquals(any, UdpConnectorConfig.builder().bindAddress(any).buildConfig().bindAddress());
        assertEquals(BindFamily.everyInterface(UdpConnectorConfig.DEFAULT_PORT),
                UdpConnectorConfig.builder().buildConfig().bindAddress());
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anIpv4AddressOpensAnIpv4Socket(Kind kind) throws Exception {
        BlockingQueue<InetSocketAddress> peers = new ArrayBlockingQueue<>(4);
        Connector c = start(kind, new InetSocketAddress(V4_LOOPBACK, 0), peers);
        int port = c.getAddress().getPort();
        assertTrue(boundIn("udp", port), "an IPv4 socket holds port " + port);
        assertFalse(boundIn("udp6", port), "no IPv6 socket holds port " + port);
        assertEquals(V4_LOOPBACK, c.getAddress().getAddress());
        assertAnswered(c, V4_LOOPBACK, peers);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theIpv4WildcardServesBothAsInTheJdk(Kind kind) throws Exception {
        BlockingQueue<InetSocketAddress> peers = new ArrayBlockingQueue<>(4);
        // new InetSocketAddress(port) is 0.0.0.0: Java code means "every interface" by it
        Connector c = start(kind, new InetSocketAddress(0), peers);
        int port = c.getAddress().getPort();
        assertTrue(boundIn("udp6", port), "a dual-stack IPv6 socket holds port " + port);
        assertFalse(boundIn("udp", port));
        assertAnswered(c, V4_LOOPBACK, peers);
        assertAnswered(c, address("::1"), peers);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theIpv6WildcardServesBothAndReportsIpv4PeersAsIpv4(Kind kind) throws Exception {
        BlockingQueue<InetSocketAddress> peers = new ArrayBlockingQueue<>(4);
        Connector c = start(kind, BindFamily.everyInterface(0), peers);
        int port = c.getAddress().getPort();
        assertTrue(boundIn("udp6", port), "a dual-stack IPv6 socket holds port " + port);
        assertFalse(boundIn("udp", port));
        assertAnswered(c, V4_LOOPBACK, peers);
        assertAnswered(c, address("::1"), peers);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anIpv4SocketRefusesAnIpv6PeerAndCarriesOn(Kind kind) throws Exception {
        BlockingQueue<InetSocketAddress> peers = new ArrayBlockingQueue<>(4);
        Connector c = start(kind, new InetSocketAddress(V4_LOOPBACK, 0), peers);
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        c.send(RawData.outbound(new byte[] {0x40, 0, 0, 1}, EndpointContext.of(new InetSocketAddress(address("::1"), 5683)),
                new SendCallback() {
                    @Override
                    public void onSent() {
                        failed.completeExceptionally(new AssertionError("sent to IPv6 from an IPv4 socket"));
                    }

                    @Override
                    public void onFailed(Throwable cause) {
                        failed.complete(cause);
                    }
                }));
        Throwable cause = failed.get(20, TimeUnit.SECONDS);
        assertEquals(SendFailedException.Reason.IO_ERROR, assertInstanceOf(SendFailedException.class, cause).reason());
        assertEquals(1, c.counters().sendErrors());
        assertAnswered(c, V4_LOOPBACK, peers);
    }

    /**
     * A client on {@code from} sends to the connector's port and gets the echo; the connector saw
     * the client's own address, of the client's family, with its port.
     */
    private static void assertAnswered(Connector c, InetAddress from, BlockingQueue<InetSocketAddress> peers)
            throws Exception {
        try (DatagramChannel client = DatagramChannel.open(from instanceof Inet4Address
                ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6)) {
            client.bind(new InetSocketAddress(from, 0));
            byte[] hello = "family".getBytes(StandardCharsets.US_ASCII);
            client.send(ByteBuffer.wrap(hello), new InetSocketAddress(from, c.getAddress().getPort()));
            InetSocketAddress seen = peers.poll(20, TimeUnit.SECONDS);
            assertEquals(client.getLocalAddress(), seen, "the peer in the endpoint context");
            assertEquals(from.getClass(), seen.getAddress().getClass(), "no IPv4-mapped IPv6 address for an IPv4 peer");
            ByteBuffer in = ByteBuffer.allocate(64);
            client.receive(in);
            assertEquals(hello.length, in.position());
        }
    }

    /** Whether a socket of the kernel's table {@code udp} (IPv4) or {@code udp6} is bound to {@code port}. */
    private static boolean boundIn(String table, int port) throws IOException {
        String suffix = String.format(":%04X", port);
        for (String line : Files.readAllLines(Path.of("/proc/self/net", table))) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length > 1 && fields[1].endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
