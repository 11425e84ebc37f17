package io.stagecoach.bench.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.cli.BenchOptions;
import io.stagecoach.bench.load.StepResult;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The C generator's output as a step, and the options that select it (no gcc needed here). */
class CoapTcpLoadTest {

    @Test
    void theToolsOutputBecomesAStep() throws Exception {
        String out = String.join("\n", "connections 100", "completed 6", "timeouts 2", "errors 1", "closed 3",
                "stray 0", "duration_s 2.000", "rps 3", "p50_us 100", "p99_us 900", "max_us 900",
                "H 100 4", "H 250 1", "H 900 1", "");
        StepResult r = CoapTcpLoad.parse(out, 100, 10_000_000);
        assertEquals(100, r.concurrency());
        assertEquals(6, r.completed());
        assertEquals(2, r.timeouts());
        assertEquals(4, r.errors(), "errors and connections that ended");
        assertEquals(3.0, r.throughputRps(), 1e-9);
        assertEquals(2.0, r.durationS(), 1e-9);
        assertEquals(6, r.latencyUs().getTotalCount());
        assertEquals(100, r.latencyUs().getValueAtPercentile(50), 1);
        assertEquals(900, r.latencyUs().getMaxValue(), 1);
    }

    @Test
    void theToolsIoModeIsEpollOrUring() {
        assertEquals("uring", CoapTcpLoad.io("uring"));
        assertEquals("epoll", CoapTcpLoad.io("epoll"));
        assertThrows(IllegalArgumentException.class, () -> CoapTcpLoad.io("io_uring2"));
    }

    @Test
    void outputWithoutAResultIsAFailure() {
        assertThrows(IOException.class, () -> CoapTcpLoad.parse("connect: refused\n", 10, 1_000_000));
    }

    @Test
    void coapTcpTakesTheJavaOrTheCGeneratorWithoutRate() {
        BenchOptions o = BenchOptions.parse(new String[] {"--uri", "coap+tcp://127.0.0.1:5700/benchmark",
            "--generator", "c"});
        assertEquals("c", o.generator());
        assertEquals("java", BenchOptions.parse(new String[] {"--uri", "coap+tcp://127.0.0.1/x"}).generator());
        assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--uri", "coap+tcp://127.0.0.1/x", "--generator", "c-sockets"}));
        assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--uri", "coap+tcp://127.0.0.1/x", "--generator", "c",
                    "--rate", "1000"}));
        assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--uri", "coap+tcp://127.0.0.1/x", "--generator", "rust"}));
        BenchOptions uring = BenchOptions.parse(new String[] {"--uri", "coap+tcp://127.0.0.1/x", "--generator", "c-uring"});
        assertTrue(uring.cGenerator() && uring.uringGenerator(), "c-uring is the C generator on io_uring");
        assertFalse(o.uringGenerator(), "c stays on epoll");
        assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--uri", "coap://127.0.0.1/x", "--generator", "c-uring"}),
                "coap-load (UDP) has no io_uring mode");
        assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--uri", "coap+tcp://127.0.0.1/x", "--non"}));
    }
}
