package io.stagecoach.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --server-cmd}: a server started from a command, here this build's
 * {@link FloodServerMain} in a JVM of its own standing in for an older build's launcher.
 */
@Timeout(90)
class ExternalFloodTargetTest {

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void startsTheCommandOnAFreePortWaitsForAPingAndEndsIt() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = "'" + java + "' -Xmx64m -cp '" + System.getProperty("java.class.path") + "' "
                + FloodServerMain.class.getName() + " {port} 1024 100";
        ExternalFloodTarget t = ExternalFloodTarget.start(command);
        InetSocketAddress a;
        try {
            a = t.address();
            assertTrue(a.getAddress().isLoopbackAddress() && a.getPort() > 0, a.toString());
            assertTrue(t.isAlive());
            assertFalse(t.hasStats());
            assertEquals(Map.of(), t.stats());
            assertEquals(Map.of(), t.statsAfterGc());
            assertTrue(t.description().contains(" " + a.getPort() + " 1024 100"), "{port} replaced: " + t.description());
            assertTrue(CoapPing.answered(a, 5_000, t::isAlive), "answers a ping from 127.0.0.1");
        } finally {
            t.close();
        }
        assertFalse(t.isAlive(), "close() ends the process");
        assertFalse(CoapPing.answered(a, 600, () -> true), "nothing answers on its port any more");
    }

    @Test
    void aCommandThatEndsIsReportedWithItsOutput() {
        IOException e = assertThrows(IOException.class,
                () -> ExternalFloodTarget.start("sh -c 'echo no server on {port}; exit 3'"));
        assertTrue(e.getMessage().contains("exit code 3") && e.getMessage().contains("no server on"), e.getMessage());
    }

    @Test
    void theReportOfAServerWithoutCountersSaysSoAndJudgesByThePing() {
        FloodResult ok = FloodResult.judge("t", List.of(), List.of(), Map.of(), Map.of(), true, 0, List.of());
        assertTrue(ok.toText().contains("server counters: none (an external server)"), ok.toText());
        assertTrue(ok.toText().contains("PASS  server alive and answering after the attacks"), ok.toText());
        FloodResult dead = FloodResult.judge("t", List.of(), List.of(), Map.of(), Map.of(), false, 0, List.of());
        assertTrue(dead.toText().contains("FAIL  server alive and answering after the attacks"), dead.toText());
    }

    @Test
    void serverCommandNeedsAPortPlaceholder() {
        assertEquals("run {port}", FloodOptions.parse(new String[] {"--server-cmd", "run {port}"}).serverCommand());
        assertEquals(null, FloodOptions.defaults().serverCommand());
        assertThrows(IllegalArgumentException.class, () -> FloodOptions.parse(new String[] {"--server-cmd", "run"}));
        assertThrows(IllegalArgumentException.class, () -> FloodOptions.parse(new String[] {"--server-cmd", " "}));
    }
}
