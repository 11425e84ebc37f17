package io.stagecoach.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.echo.EchoServer;
import io.stagecoach.bench.load.EventPacedClock;
import io.stagecoach.core.testutil.Json;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class CoapBenchTest {

    @TempDir
    Path dir;

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void optionsAreParsed() {
        BenchOptions o = BenchOptions.parse(new String[] {"--uri", "coap://127.0.0.1:5700/x", "--concurrency", "10:1000",
            "--duration", "1.5", "--warmup", "0", "--method", "post", "--payload-size", "32", "--non",
            "--timeout", "0.25", "--threads", "3", "--json", "o.json"});
        assertEquals(List.of(10, 100, 1000), o.steps());
        assertEquals(Duration.ofMillis(1500), o.load().duration());
        assertEquals(Duration.ZERO, o.load().warmup());
        assertEquals("POST", o.load().method());
        assertEquals(32, o.load().payloadSize());
        assertFalse(o.load().confirmable());
        assertEquals(Duration.ofMillis(250), o.load().timeout());
        assertEquals(3, o.load().loops());
        assertEquals(Path.of("o.json"), o.json());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--bogus"}));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--duration"}));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--uri", "coaps://h/x"}));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--timeout", "-1"}));
    }

    @Test
    void generatorAndRateAreValidated() {
        BenchOptions java = BenchOptions.parse(new String[] {"--concurrency", "10"});
        assertEquals("java", java.generator());
        assertFalse(java.cGenerator());
        BenchOptions c = BenchOptions.parse(new String[] {"--generator", "c", "--rate", "50000"});
        assertTrue(c.cGenerator());
        assertEquals(50000.0, c.rate());
        assertTrue(BenchOptions.parse(new String[] {"--generator", "c-sockets"}).cGenerator());
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--generator", "rust"}));
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--rate", "1000"}),
                "the Java loops cannot pace");
        assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--generator", "c", "--rate", "-1"}));
    }

    @Test
    void badUsageExitsWith2() throws Exception {
        assertEquals(2, CoapBench.run(new String[] {"--concurrency", "ten"}));
        assertEquals(2, CoapBench.run(new String[] {"frobnicate"}));
    }

    @Test
    void aSilentTargetEndsTheRunWithExitCode3() throws Exception {
        try (DatagramChannel silent = DatagramChannel.open()) {
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) silent.getLocalAddress()).getPort();
            int code = CoapBench.run(new String[] {"--uri", "coap://127.0.0.1:" + port + "/benchmark",
                "--concurrency", "2,4", "--duration", "0.3", "--warmup", "0", "--cooldown", "0", "--timeout", "0.1",
                "--quiet", "--json", dir.resolve("never.json").toString()});
            assertEquals(3, code, "no answer in the first step");
            assertFalse(Files.exists(dir.resolve("never.json")));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aShortRunWritesEveryOutput() throws Exception {
        try (EchoServer echo = EchoServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            // Each phase ends once the step's clients received 20 answers in it, so the first step
            // cannot end the run with exit 3 however slowly the machine runs.
            EventPacedClock clock = EventPacedClock.onAnswers(20);
            int code = CoapBench.run(new String[] {"--uri", "coap://127.0.0.1:" + echo.address().getPort() + "/benchmark",
                "--concurrency", "3,6", "--duration", "0.5", "--warmup", "0.2", "--cooldown", "0", "--quiet",
                "--json", dir.resolve("r.json").toString(), "--csv", dir.resolve("r.csv").toString(),
                "--html", dir.resolve("r.html").toString(), "--hlog", dir.resolve("hlog").toString()}, clock);
            assertEquals(0, code);
            assertEquals(4, clock.waits(), "warm-up and window of two steps");
            Map<String, Object> json = Json.parseObject(Files.readString(dir.resolve("r.json")));
            List<Object> steps = (List<Object>) json.get("steps");
            assertEquals(List.of(3L, 6L), steps.stream().map(s -> ((Map<String, Object>) s).get("concurrency")).toList());
            assertTrue((Long) ((Map<String, Object>) steps.get(1)).get("completed") >= 20, json.toString());
            assertEquals(3, Files.readAllLines(dir.resolve("r.csv")).size());
            assertTrue(Files.readString(dir.resolve("r.html")).contains("<svg"));
            assertTrue(Files.exists(dir.resolve("hlog/step-01-c3.hlog")));
            assertTrue(Files.readString(dir.resolve("hlog/step-02-c6.hlog")).contains("#[StartTime:"));
        }
    }
}
