package io.stagecoach.core.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.testing.Await;
import io.stagecoach.elements.testing.LoopbackPorts;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.AssertionFailedError;

/** {@link PeerProcess} and {@link LoopbackPorts} with /bin/sh standing in for a peer. */
class PeerProcessTest {

    @Test
    void capturesOutputAndExitCode() throws Exception {
        try (PeerProcess p = PeerProcess.start(List.of("/bin/sh", "-c", "echo out; echo err >&2; exit 3"))) {
            assertEquals(3, p.awaitExit(Duration.ofSeconds(10)), p.describe());
            assertEquals("out\n", p.stdout());
            assertEquals("err\n", p.stderr());
            assertTrue(p.describe().contains("exit code 3"), p.describe());
        }
    }

    @Test
    void awaitExitFailsWithTheCommandWhenThePeerKeepsRunning() throws Exception {
        try (PeerProcess p = PeerProcess.start(List.of("/bin/sh", "-c", "echo started; exec sleep 60"))) {
            AssertionFailedError e = assertThrows(AssertionFailedError.class,
                    () -> p.awaitExit(Duration.ofMillis(200)));
            assertTrue(e.getMessage().contains("sleep 60") && e.getMessage().contains("running"), e.getMessage());
        }
    }

    @Test
    void awaitOutputWaitsForALineWrittenLater() throws Exception {
        try (PeerProcess p = PeerProcess.start(List.of("/bin/sh", "-c", "echo one; sleep 0.3; echo two >&2; exec sleep 60"))) {
            assertTrue(p.awaitOutput(q -> q.stderr().contains("two"), Duration.ofSeconds(20)), p.describe());
            assertEquals("one\n", p.stdout());
            assertTrue(p.isAlive(), "the wait ended on the output, not on the exit: " + p.describe());
        }
    }

    @Test
    @Timeout(30) // the wait below would last 60 s if the exit did not end it
    void awaitOutputEndsWhenThePeerExitsWithoutWritingIt() throws Exception {
        try (PeerProcess p = PeerProcess.start(List.of("/bin/sh", "-c", "echo one; exit 0"))) {
            assertFalse(p.awaitOutput(q -> q.stdout().contains("two"), Duration.ofSeconds(60)), p.describe());
            assertEquals("one\n", p.stdout(), "all it wrote before exiting");
        }
    }

    @Test
    void closeEndsThePeerAndItsChildren() throws Exception {
        PeerProcess p = PeerProcess.start(List.of("/bin/sh", "-c", "sleep 60 & wait"));
        ProcessHandle self = ProcessHandle.of(p.pid()).orElseThrow();
        // The child appears after the shell forked it.
        Await.until(() -> self.descendants().findAny().isPresent(), Duration.ofSeconds(10));
        List<ProcessHandle> children = self.descendants().toList();
        assertFalse(children.isEmpty(), "sh should have started sleep: " + p.describe());

        p.close();

        assertFalse(p.isAlive(), "peer still running after close()");
        for (ProcessHandle child : children) {
            child.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertFalse(child.isAlive(), "child " + child.pid() + " survived close()");
        }
    }

    @Test
    void freePortCanBeBoundForUdp() throws IOException {
        int port = LoopbackPorts.freeUdpAndTcpPort();
        assertNotEquals(0, port);
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
            assertEquals(port, s.getLocalPort());
        }
    }
}
