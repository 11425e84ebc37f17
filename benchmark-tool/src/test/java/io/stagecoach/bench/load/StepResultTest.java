package io.stagecoach.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class StepResultTest {

    private static Histogram histogram(long from, long to) {
        Histogram h = new Histogram(1, 20_000_000, 3);
        for (long v = from; v <= to; v++) {
            h.recordValue(v);
        }
        return h;
    }

    @Test
    void mergeAddsCountsAndHistogramsAndTakesPercentilesFromTheUnion() {
        // Slave A: 1000 fast answers (100..1099 µs); slave B: 100 slow ones (10000..10099 µs).
        StepResult a = StepResult.of(5, 10.0, 2, 1, histogram(100, 1099));
        StepResult b = StepResult.of(3, 10.5, 4, 0, histogram(10_000, 10_099));
        StepResult m = StepResult.merge(List.of(a, b));

        assertEquals(8, m.concurrency());
        assertEquals(1100, m.completed());
        assertEquals(m.completed(), m.latencyUs().getTotalCount());
        assertEquals(6, m.timeouts());
        assertEquals(1, m.errors());
        assertEquals(a.throughputRps() + b.throughputRps(), m.throughputRps(), 1e-9);
        assertEquals(10.5, m.durationS());

        Histogram union = histogram(100, 1099);
        union.add(histogram(10_000, 10_099));
        for (double p : new double[] {50, 90, 95, 99, 99.9}) {
            assertEquals(union.getValueAtPercentile(p), m.percentileUs(p), "p" + p);
        }
        // p50 of the union (≈ 650 µs) is not the average of the slaves' p50 (≈ 600 and 10050 µs).
        long averaged = (a.percentileUs(50) + b.percentileUs(50)) / 2;
        assertNotEquals(averaged, m.percentileUs(50));
        assertEquals(100, m.minUs());
        assertEquals(union.getMaxValue(), m.maxUs());
    }

    @Test
    void mergeOfHistogramsWithDifferentRangesKeepsTheLargest() {
        Histogram small = new Histogram(1, 2_000, 3);
        small.recordValue(1_500);
        Histogram large = new Histogram(1, 20_000_000, 3);
        large.recordValue(15_000_000);
        StepResult m = StepResult.merge(List.of(StepResult.of(1, 1, 0, 0, small), StepResult.of(1, 1, 0, 0, large)));
        assertEquals(2, m.completed());
        assertEquals(large.getMaxValue(), m.maxUs());
    }

    @Test
    void completedMustEqualTheHistogramCount() {
        assertThrows(IllegalArgumentException.class,
                () -> new StepResult(1, 1, 5, 0, 0, 5, histogram(1, 4)));
    }

    @Test
    void emptyStepReportsNoLatency() {
        StepResult r = StepResult.of(10, 2, 7, 0, new Histogram(1, 1000, 3));
        assertEquals(0, r.completed());
        assertEquals(0, r.throughputRps());
        assertEquals(-1, r.percentileUs(50));
        assertEquals(-1, r.minUs());
    }
}
