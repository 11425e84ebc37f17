package io.stagecoach.core.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One host flooding the protocol stage takes at most half its queue: another host's datagrams
 * still get in, where before they would have been answered 5.03 for a queue the flood filled.
 */
class ProtocolStageShareTest {

    private static final InetSocketAddress ATTACKER_PORT_1 = new InetSocketAddress("127.0.0.66", 40001);
    private static final InetSocketAddress ATTACKER_PORT_2 = new InetSocketAddress("127.0.0.66", 40002);
    /** Sources in buckets of their own: the hash key is random per process. */
    private static final InetSocketAddress INNOCENT = apart(ATTACKER_PORT_1);
    private static final InetSocketAddress THIRD = apart(ATTACKER_PORT_1, INNOCENT);

    private static InetSocketAddress apart(InetSocketAddress... others) {
        for (int host = 1; ; host++) {
            InetSocketAddress candidate = new InetSocketAddress("127.0.1." + host, 50000);
            boolean alone = true;
            for (InetSocketAddress o : others) {
                alone &= SourceShares.bucket(o) != SourceShares.bucket(candidate);
            }
            if (alone) {
                return candidate;
            }
        }
    }

    @Test
    void oneSourceTakesAtMostHalfTheQueueWhateverItsPortsAndGetsItBackWhenServed() throws Exception {
        ProtocolStage stage = ProtocolStage.pool(1, 8);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        Runnable held = () -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ran.incrementAndGet();
        };
        try {
            int admitted = 0;
            for (int i = 0; i < 20; i++) {
                if (stage.tryExecute(i % 2 == 0 ? ATTACKER_PORT_1 : ATTACKER_PORT_2, held)) {
                    admitted++;
                }
            }
            // share = half of 8; the one running on the thread counts until it is done
            assertEquals(4, admitted);
            assertFalse(stage.tryExecute(ATTACKER_PORT_1, held));
            for (int i = 0; i < 4; i++) {
                assertTrue(stage.tryExecute(INNOCENT, ran::incrementAndGet), "innocent datagram " + i);
            }
            release.countDown();
            // one thread runs the queue in order: once a later task ran, the earlier ones have
            // run and given their places back
            CountDownLatch drained = new CountDownLatch(1);
            assertTrue(stage.tryExecute(THIRD, drained::countDown));
            assertTrue(drained.await(10, TimeUnit.SECONDS));
            assertEquals(8, ran.get());
            assertTrue(stage.tryExecute(ATTACKER_PORT_1, ran::incrementAndGet), "the attacker's share is free again");
        } finally {
            release.countDown();
            stage.shutdown(Duration.ofSeconds(5));
        }
    }

    @Test
    void anInlineStageCountsNothing() {
        ProtocolStage stage = ProtocolStage.pool(0, 8);
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            assertTrue(stage.tryExecute(ATTACKER_PORT_1, ran::incrementAndGet));
        }
        assertEquals(100, ran.get());
    }
}
