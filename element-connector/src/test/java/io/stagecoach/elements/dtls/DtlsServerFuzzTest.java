package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Jazzer target for the whole receive path of a DTLS server as an unauthenticated sender reaches
 * it: the screen of every record and handshake fragment, the routing by connection ID and by
 * address, the stateless cookie exchange (HelloVerifyRequest, RFC 6347 §4.2.1) and the handshake
 * admission. The input is a sequence of datagrams from four source addresses with clock steps
 * between them ({@link DtlsFuzzSeeds#decode}); one PSK server with connection IDs serves every
 * input, on a virtual clock, over a transport that hands the datagrams in on the fuzzer's thread.
 *
 * <p>Contract per datagram: nothing escapes the connector; whatever it answers at once (a
 * HelloVerifyRequest) is no larger than the datagram that caused it (no amplification); the
 * handshakes in progress stay within {@code dtls.max-handshakes}. Seeds in
 * {@code DtlsServerFuzzTestInputs/datagrams/} ({@link DtlsFuzzSeeds}).
 */
class DtlsServerFuzzTest {

    private static final VirtualClock CLOCK = new VirtualClock();
    private static final Wire WIRE = new Wire();
    private static DtlsConnector server;

    /** The connector below the server: delivers what the test gives it, records the answers. */
    private static final class Wire extends HandInConnector {
        private Thread delivering;
        private int deliveringBytes;
        final List<String> amplified = new ArrayList<>();

        void deliver(byte[] datagram, InetSocketAddress from) {
            delivering = Thread.currentThread();
            deliveringBytes = datagram.length;
            try {
                handIn(datagram, from, CLOCK.nanoTime());
            } finally {
                delivering = null;
            }
        }

        @Override
        public void send(RawData data) {
            if (Thread.currentThread() == delivering && data.size() > deliveringBytes) {
                amplified.add(data.size() + " bytes answered " + deliveringBytes);
            }
            data.notifySent();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        server = DtlsConnector.builder(DtlsConnectorConfig.Role.SERVER).pskStore(PskStore.of("client1", "secretPSK"))
                .scheduler(CLOCK).transport(c -> WIRE).build();
        server.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.destroy();
        }
    }

    @FuzzTest(maxDuration = "60s")
    void datagrams(byte[] input) {
        for (DtlsFuzzSeeds.Datagram d : DtlsFuzzSeeds.decode(input)) {
            WIRE.deliver(d.bytes(), d.from());
            assertTrue(WIRE.amplified.isEmpty(), () -> "answer larger than its datagram: " + WIRE.amplified);
            assertTrue(server.handshakeCount() <= server.config().maxHandshakes());
            CLOCK.advance(d.then());
        }
    }

    /** Clock steps between datagrams (the sweep expires sessions and handshakes on it). */
    static final Duration[] STEPS = {Duration.ZERO, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(40)};
}
