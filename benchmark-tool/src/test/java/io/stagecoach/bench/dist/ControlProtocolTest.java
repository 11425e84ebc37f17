package io.stagecoach.bench.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.core.coap.CoapUri;
import java.time.Duration;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ControlProtocolTest {

    @Test
    void valuesWithSpacesAndEqualsSignsSurviveALine() {
        ControlProtocol.Line l = ControlProtocol.line("EXEC", "cmd", "ab -n 10 'x=y' && echo \"%\"\n", "start", 5);
        String wire = l.encode();
        assertEquals(-1, wire.indexOf('\n'), "one line on the wire: " + wire);
        ControlProtocol.Line back = ControlProtocol.parse(wire);
        assertEquals("EXEC", back.verb());
        assertEquals("ab -n 10 'x=y' && echo \"%\"\n", back.get("cmd"));
        assertEquals(5, back.getLong("start"));
    }

    @Test
    void runLineCarriesTheWholeLoadSpec() {
        LoadSpec s = new LoadSpec(CoapUri.parse("coap://10.0.0.1:5684/a/b?x=1"), "POST", 32, false,
                Duration.ofMillis(1500), Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofMillis(250), 3);
        ControlProtocol.Line run = ControlProtocol.parse(ControlProtocol.run(123456789L, 77, s).encode());
        assertEquals(123456789L, run.getLong("start"));
        assertEquals(77, run.getLong("concurrency"));
        assertEquals(s, ControlProtocol.loadSpec(run));
    }

    @Test
    void resultRoundTripKeepsCountsAndTheHistogram() {
        Histogram h = new Histogram(1, 20_000_000, 3);
        for (int i = 1; i <= 5000; i++) {
            h.recordValue(i * 7L);
        }
        StepResult r = StepResult.of(40, 3.25, 2, 1, h);
        StepResult back = ControlProtocol.stepResult(ControlProtocol.parse(ControlProtocol.result(r, 3).encode()));
        assertEquals(r.concurrency(), back.concurrency());
        assertEquals(r.completed(), back.completed());
        assertEquals(r.timeouts(), back.timeouts());
        assertEquals(r.errors(), back.errors());
        assertEquals(r.durationS(), back.durationS());
        assertEquals(r.throughputRps(), back.throughputRps(), 1e-9);
        assertEquals(h, back.latencyUs(), "decoded histogram equals the encoded one");
    }

    @Test
    void malformedInputIsRejectedClearly() {
        assertThrows(IllegalArgumentException.class, () -> ControlProtocol.parse(null));
        assertThrows(IllegalArgumentException.class, () -> ControlProtocol.parse("RESULT completed"));
        assertThrows(IllegalArgumentException.class, () -> ControlProtocol.parse("RESULT a=1").get("hist"));
        assertThrows(IllegalArgumentException.class, () -> ControlProtocol.decode("not-base64!"));
        Histogram h = new Histogram(1, 1000, 3);
        h.recordValue(5);
        // completed disagrees with the histogram: refused rather than merged silently.
        ControlProtocol.Line bad = ControlProtocol.line("RESULT", "late_ms", 0, "concurrency", 1, "duration_s", 1,
                "timeouts", 0, "errors", 0, "throughput", 1, "completed", 2, "hist", ControlProtocol.encode(h));
        assertThrows(IllegalArgumentException.class, () -> ControlProtocol.stepResult(bad));
    }
}
