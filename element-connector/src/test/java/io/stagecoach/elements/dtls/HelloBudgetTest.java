package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.time.VirtualClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The hello budget on a virtual clock: counts in total and per source, and the time share while records arrive. */
class HelloBudgetTest {

    private static final long MICROS_10 = TimeUnit.MICROSECONDS.toNanos(10);

    private final VirtualClock clock = new VirtualClock();

    private static InetAddress spoofed(int i) throws Exception {
        return InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i});
    }

    /** Offers {@code hellos} hellos from distinct sources evenly over one second, each admitted one costing {@code cost}. */
    private int offerOverOneSecond(HelloBudget budget, int hellos, long cost, boolean recordsFlow) throws Exception {
        long step = TimeUnit.SECONDS.toNanos(1) / hellos;
        int admitted = 0;
        for (int i = 0; i < hellos; i++) {
            clock.advance(Duration.ofNanos(step));
            if (recordsFlow) {
                budget.recordArrived(clock.nanoTime());
            }
            if (budget.tryAcquire(spoofed(i))) {
                admitted++;
                budget.charge(cost);
            }
        }
        return admitted;
    }

    @Test
    void withoutRecordsOnlyTheCountsLimit() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 5, clock);
        offerOverOneSecond(budget, 50_000, MICROS_10, false); // the first second may pass a burst
        int admitted = offerOverOneSecond(budget, 50_000, MICROS_10, false);
        assertEquals(20_000, admitted, 20, "the total count per second");
    }

    @Test
    void whileRecordsArriveCookieWorkTakesAtMostItsShareOfTime() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 5, clock);
        offerOverOneSecond(budget, 50_000, MICROS_10, true);
        int admitted = offerOverOneSecond(budget, 50_000, MICROS_10, true);
        // 5 % of a second is 50 ms of work: 5,000 hellos of 10 µs, where the counts alone allow 20,000
        assertEquals(5_000, admitted, 50);
        assertTrue(budget.busy(clock.nanoTime()));
    }

    @Test
    void hellosGetTheTimeBackWhenRecordsStop() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 5, clock);
        offerOverOneSecond(budget, 50_000, MICROS_10, true);
        clock.advance(Duration.ofMillis(HelloBudget.BUSY_MILLIS));
        assertFalse(budget.busy(clock.nanoTime()));
        int admitted = offerOverOneSecond(budget, 50_000, MICROS_10, false);
        assertTrue(admitted > 19_000, admitted + " hellos in the first idle second");
    }

    @Test
    void debtFromIdleWorkHoldsHellosAtMostOneWindowOnceRecordsResume() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 5, clock);
        // idle: a second of expensive hellos (1 ms each) would be 20 s of debt at 5 %, uncapped
        offerOverOneSecond(budget, 1_000, TimeUnit.MILLISECONDS.toNanos(1), false);
        budget.recordArrived(clock.nanoTime());
        assertFalse(budget.tryAcquire(spoofed(1)), "records now arrive: the debt holds hellos back");
        clock.advance(Duration.ofMillis(HelloBudget.WORK_WINDOW_MILLIS));
        budget.recordArrived(clock.nanoTime());
        assertTrue(budget.tryAcquire(spoofed(2)), "after one window at most");
    }

    @Test
    void oneSourceGetsItsOwnRateWhateverTheTotal() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 100, clock);
        InetAddress one = spoofed(7);
        int admitted = 0;
        for (int i = 0; i < 40_000; i++) {
            clock.advance(Duration.ofNanos(50_000)); // 20,000/s for two seconds; the first may pass a burst
            boolean passed = budget.tryAcquire(one);
            admitted += i >= 20_000 && passed ? 1 : 0;
        }
        assertEquals(2_000, admitted, 2, "the per-source rate in the second second");
    }


    @Test
    void aFloodFromManyPortsOfOneAddressLeavesEachPortItsTurnEverySecond() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 100, clock);
        InetAddress nat = spoofed(9);
        int flooded = 0;
        int client = 0;
        // 50,000 first hellos/s from 1,000 ports (50/s each) for two seconds; a client on another
        // port of the same address sends one hello in each second
        for (int i = 0; i < 100_000; i++) {
            clock.advance(Duration.ofNanos(20_000));
            boolean passed = budget.tryAcquire(nat, 10_000 + i % 1_000, i, clock.nanoTime());
            flooded += i >= 50_000 && passed ? 1 : 0;
            if (i % 50_000 == 25_000) {
                client += budget.tryAcquire(nat, 40_000, -i, clock.nanoTime()) ? 1 : 0;
            }
        }
        // about one per port and second (a port's turn comes back 1 s after its answer, at its next
        // hello 20 ms apart, so a few ports skip a second); far below the address's 2,000
        assertEquals(1_000, flooded, 30);
        assertEquals(2, client, "the client's port has its turn each time");
    }

    @Test
    void aPortGetsOneFirstHelloAnsweredPerSecondAndItsCookieHelloIsNotHeldBack() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 100, clock);
        InetAddress nat = spoofed(10);
        assertTrue(budget.tryAcquire(nat, 40_000, 1, clock.nanoTime()));
        assertFalse(budget.tryAcquire(nat, 40_000, 2, clock.nanoTime()), "another first hello from the port");
        assertTrue(budget.tryAcquire(nat, 40_001, 3, clock.nanoTime()), "another port has its own turn");
        assertTrue(budget.tryAcquire(nat, -1, 0, clock.nanoTime()), "a hello with a cookie meets the counts only");
        clock.advance(Duration.ofMillis(HelloBudget.PORT_INTERVAL_MILLIS - 1));
        assertFalse(budget.tryAcquire(nat, 40_000, 4, clock.nanoTime()));
        clock.advance(Duration.ofMillis(1));
        assertTrue(budget.tryAcquire(nat, 40_000, 5, clock.nanoTime()), "the retransmission after RFC 6347's 1 s timer");
        budget.cookieReturned(nat, 40_000);
        assertTrue(budget.tryAcquire(nat, 40_000, 6, clock.nanoTime()), "a returned cookie gives the port's turn back");
        assertFalse(budget.tryAcquire(nat, 40_000, 7, clock.nanoTime()));
    }

    @Test
    void theSameHelloAgainIsAnsweredAFewTimesWithinThePortsInterval() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 100, clock);
        InetAddress client = spoofed(11);
        assertTrue(budget.tryAcquire(client, 40_000, 42, clock.nanoTime()));
        // its HelloVerifyRequest is lost; a client timer shorter than the interval sends the same hello again
        for (int i = 0; i < HelloBudget.PORT_REPEATS; i++) {
            clock.advance(Duration.ofMillis(10));
            assertTrue(budget.tryAcquire(client, 40_000, 42, clock.nanoTime()), "repeat " + i);
        }
        assertFalse(budget.tryAcquire(client, 40_000, 42, clock.nanoTime()), "at most " + HelloBudget.PORT_REPEATS + " repeats");
        assertFalse(budget.tryAcquire(client, 40_000, 43, clock.nanoTime()), "a new hello waits for the port's turn");
    }

    @Test
    void fullShareNeverLimitsByTime() throws Exception {
        HelloBudget budget = new HelloBudget(20_000, 2_000, 100, clock);
        offerOverOneSecond(budget, 50_000, TimeUnit.MILLISECONDS.toNanos(1), true);
        int admitted = offerOverOneSecond(budget, 50_000, TimeUnit.MILLISECONDS.toNanos(1), true);
        assertEquals(20_000, admitted, 20);
        assertFalse(budget.busy(clock.nanoTime()));
        assertThrows(IllegalArgumentException.class, () -> new HelloBudget(1, 1, 0, clock));
    }
}
