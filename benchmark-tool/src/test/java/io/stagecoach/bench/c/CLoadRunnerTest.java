package io.stagecoach.bench.c;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.core.coap.CoapUri;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Java side of the C generator: its output read into a step, its preconditions. No gcc needed. */
class CLoadRunnerTest {

    @Test
    void outputBecomesAStepWithHistogramAndCpuTimes() throws IOException {
        String out = "result clients=100 mode=sources duration_s=2.000 completed=4000 timeouts=3 errors=1"
                + " unavailable=1 stray=0 server_cpu_s=1.500 generator_cpu_s=0.400\n"
                + "hist 50 1000\nhist 100 2999\nhist 9000 1\n";
        StepResult r = CLoadRunner.parse(out);
        assertEquals(100, r.concurrency());
        assertEquals(4000, r.completed());
        assertEquals(3, r.timeouts());
        assertEquals(1, r.errors());
        assertEquals(1, r.unavailable());
        assertEquals(2000.0, r.throughputRps(), 1e-9);
        assertEquals(4000, r.latencyUs().getTotalCount());
        assertEquals(9000, r.latencyUs().getMaxValue(), 9000 * 1e-3, "3 significant digits");
        assertEquals(375.0, r.cpu().serverMicrosPerRequest(r.completed()), 1e-9);
        assertEquals(100.0, r.cpu().generatorMicrosPerRequest(r.completed()), 1e-9);
    }

    @Test
    void anUnwatchedServerHasNoCpuPerRequest() throws IOException {
        StepResult r = CLoadRunner.parse("result clients=1 duration_s=1.000 completed=10 timeouts=0 errors=0"
                + " unavailable=0 server_cpu_s=-1 generator_cpu_s=0.001\nhist 10 10\n");
        assertEquals(-1, r.cpu().serverMicrosPerRequest(r.completed()));
    }

    @Test
    void outputWithoutAResultLineIsAnError() {
        assertThrows(IOException.class, () -> CLoadRunner.parse("coap-load: bad server address\n"));
    }

    @Test
    void ipv6TargetsAndRetransmissionsAreRefused() {
        LoadSpec plain = spec(Duration.ZERO);
        InetSocketAddress v4 = new InetSocketAddress("127.0.0.1", 5683);
        assertThrows(IllegalArgumentException.class,
                () -> new CLoadRunner(plain, new InetSocketAddress("::1", 5683), "sources", 0, 0));
        assertThrows(IllegalArgumentException.class,
                () -> new CLoadRunner(spec(Duration.ofMillis(500)), v4, "sources", 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new CLoadRunner(plain, v4, "threads", 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new CLoadRunner(plain, v4, "sockets", -1, 0));
    }

    private static LoadSpec spec(Duration retransmit) {
        return new LoadSpec(CoapUri.parse("coap://127.0.0.1:5683/benchmark"), "GET", 0, true,
                Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(1), Duration.ZERO, 1, retransmit);
    }
}
