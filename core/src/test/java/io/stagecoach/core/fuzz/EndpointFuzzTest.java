package io.stagecoach.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.stagecoach.core.network.EndpointCounters.Gauge;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slf4j.LoggerFactory;

/**
 * Jazzer target for a whole server endpoint fed raw datagrams ({@link FuzzInput}: several
 * datagrams from up to four peers, the virtual clock moving between them). Each input gets a fresh
 * {@link FuzzedServer}, so a finding reproduces from its bytes alone. Checked per input:
 * <ul>
 *   <li>nothing escapes: the endpoint's receive path catches what a layer throws, so the check is
 *       that no timer task failed either ({@code VirtualClock.failedTasks() == 0});</li>
 *   <li>after every datagram, open exchanges, dedup entries and block-wise transfers are within
 *       the caps of {@link FuzzedServer};</li>
 *   <li>after the clock moves past every lifetime, dedup entries and transfers are 0 and only
 *       observe relations hold exchanges; after a notification nobody acknowledges and another
 *       drain, relations and exchanges are 0 too.</li>
 * </ul>
 * A hang would be an endless loop on this thread: libFuzzer's per-input timeout reports it when
 * fuzzing. Seeds: {@link EndpointFuzzSeeds} (checked by {@link SeedCorpusTest}).
 */
class EndpointFuzzTest {

    private static Level savedRoot;

    @BeforeAll
    static void quiet() {
        // A fuzzing run logs millions of refusals otherwise; the log lines are tested elsewhere.
        Logger logger = (Logger) LoggerFactory.getLogger("io.stagecoach");
        savedRoot = logger.getLevel();
        logger.setLevel(Level.ERROR);
    }

    @AfterAll
    static void restore() {
        ((Logger) LoggerFactory.getLogger("io.stagecoach")).setLevel(savedRoot);
    }

    @FuzzTest(maxDuration = "60s")
    void datagrams(byte[] input) {
        FuzzInput in = FuzzInput.decode(input);
        try (FuzzedServer s = new FuzzedServer()) {
            for (FuzzInput.Datagram d : in.datagrams()) {
                s.receive(d.bytes(), d.peer());
                s.clock.advance(d.then());
                assertWithinCaps(s);
            }
            drain(s);
        }
    }

    /**
     * Moves past every lifetime, then notifies the observable resource: every notification is a
     * CON no peer answers, so each observe relation ends when it times out (RFC 7641 §4.5), and
     * after another drain nothing is left.
     */
    static void drain(FuzzedServer s) {
        s.clock.advance(FuzzedServer.DRAIN);
        assertEquals(0, s.endpoint.dedupEntries(), () -> "dedup entries left " + s.endpoint.counters());
        assertEquals(0, s.endpoint.blockwiseTransfers(), () -> "transfers left " + s.endpoint.counters());
        // An observe relation may keep its exchange open (a NON registration does, a CON one does
        // not); nothing else may.
        assertTrue(s.endpoint.openExchanges() <= s.endpoint.counters().get(Gauge.OBSERVE_RELATIONS),
                () -> "only observe relations may keep an exchange open " + s.endpoint.counters());
        s.observable.changed();
        s.clock.advance(FuzzedServer.DRAIN);
        assertEquals(0, s.endpoint.counters().get(Gauge.OBSERVE_RELATIONS),
                () -> "relations left after unanswered CON notifications " + s.endpoint.counters());
        assertEquals(0, s.endpoint.openExchanges(), () -> "exchanges left " + s.endpoint.counters());
        assertEquals(0, s.endpoint.dedupEntries(), () -> "dedup entries left " + s.endpoint.counters());
        assertEquals(0, s.clock.failedTasks(), "timer tasks that threw");
    }

    static void assertWithinCaps(FuzzedServer s) {
        int dedup = s.endpoint.dedupEntries();
        assertTrue(dedup <= FuzzedServer.DEDUP_MAX, () -> dedup + " dedup entries > cap " + FuzzedServer.DEDUP_MAX);
        int transfers = s.endpoint.blockwiseTransfers();
        assertTrue(transfers <= FuzzedServer.BLOCKWISE_MAX,
                () -> transfers + " block-wise transfers > cap " + FuzzedServer.BLOCKWISE_MAX);
        long relations = s.endpoint.counters().get(Gauge.OBSERVE_RELATIONS);
        assertTrue(relations <= FuzzedServer.OBSERVERS_MAX, () -> relations + " observe relations > " + FuzzedServer.OBSERVERS_MAX);
        // A remote exchange is open while its request is remembered for deduplication, or while
        // it carries an observe relation.
        long exchanges = s.endpoint.counters().get(Gauge.EXCHANGES);
        assertTrue(exchanges <= FuzzedServer.DEDUP_MAX + relations,
                () -> exchanges + " open exchanges > " + (FuzzedServer.DEDUP_MAX + relations));
    }
}
