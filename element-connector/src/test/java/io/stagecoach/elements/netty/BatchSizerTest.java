package io.stagecoach.elements.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The slots a {@code recvmmsg} is offered follow what the calls before it filled: a trickle or
 * a drained socket keeps them at the minimum, a backlog grows them to the batch size.
 */
class BatchSizerTest {

    private static final int SLOT = 1153;

    private static BatchSizer.SizedHandle handle(int maxSlots) {
        return (BatchSizer.SizedHandle) new BatchSizer(SLOT, maxSlots).newHandle();
    }

    /** What Netty reports after a call that filled {@code filled} slots (-1 for none). */
    private static void call(BatchSizer.SizedHandle h, int filled) {
        h.attemptedBytesRead(h.guess());
        h.lastBytesRead(filled == 0 ? -1 : filled * SLOT);
    }

    @Test
    void startsSmallAndOffersWholeSlots() {
        BatchSizer.SizedHandle h = handle(64);
        assertEquals(BatchSizer.MIN_SLOTS, h.slots());
        assertEquals(BatchSizer.MIN_SLOTS * SLOT, h.guess());
    }

    @Test
    void aBacklogGrowsTheBatchToItsLimit() {
        BatchSizer.SizedHandle h = handle(64);
        int[] expected = {4, 8, 16, 32, 64, 64};
        for (int e : expected) {
            call(h, h.slots());
            assertEquals(e, h.slots());
        }
        assertEquals(64 * SLOT, h.guess());
    }

    @Test
    void callsThatFindLittleShrinkItToTheMinimum() {
        BatchSizer.SizedHandle h = handle(64);
        for (int i = 0; i < 5; i++) {
            call(h, h.slots());
        }
        call(h, 0); // the edge-triggered read's last call: nothing waiting
        assertEquals(32, h.slots());
        call(h, 3);
        assertEquals(16, h.slots());
        call(h, 8); // half filled: stays
        assertEquals(16, h.slots());
        for (int i = 0; i < 10; i++) {
            call(h, 1);
        }
        assertEquals(BatchSizer.MIN_SLOTS, h.slots());
        call(h, 1); // one of two filled: half, stays
        assertEquals(BatchSizer.MIN_SLOTS, h.slots());
    }

    @Test
    void aLimitBelowTheMinimumIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new BatchSizer(SLOT, 1));
        assertThrows(IllegalArgumentException.class, () -> new BatchSizer(0, 64));
    }
}
