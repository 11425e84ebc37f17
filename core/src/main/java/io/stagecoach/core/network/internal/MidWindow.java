package io.stagecoach.core.network.internal;

/**
 * One peer's message-ID state for {@link MessageIdProvider}: MIDs are handed out sequentially
 * from a random start, so the MIDs used within the lifetime always form one arc ending at the
 * counter. The arc is tracked in {@value #BLOCKS} blocks of {@value #BLOCK_SIZE} MIDs aligned to
 * the start, each with the time of its most recent use: a block may be entered again only when
 * that time is a full lifetime ago, so no MID is reused early (it may be reused up to one
 * block's worth of sends late). 64 longs: about 600 bytes per peer instead of 256 KB for a
 * timestamp per MID.
 */
final class MidWindow {

    static final int MID_COUNT = 65_536;
    static final int BLOCK_SIZE = 1_024;
    static final int BLOCKS = MID_COUNT / BLOCK_SIZE;
    /** {@link #next} result: every MID of the window was used within the lifetime. */
    static final int EXHAUSTED = -1;
    /** {@link #next} result: the window was dropped by a sweep; ask the provider for a new one. */
    static final int RETIRED = -2;

    private final int start;
    private final long[] blockLastUse = new long[BLOCKS];
    /** MIDs handed out so far; the next MID is {@code start + issued}. */
    private long issued;
    private long lastUse;
    private boolean retired;

    MidWindow(int start, long nowNanos) {
        this.start = start & 0xFFFF;
        this.lastUse = nowNanos;
    }

    synchronized int next(long nowNanos, long lifetimeNanos) {
        if (retired) {
            return RETIRED;
        }
        int offset = (int) (issued & 0xFFFF);
        int block = offset / BLOCK_SIZE;
        if (issued >= MID_COUNT && offset % BLOCK_SIZE == 0 && nowNanos - blockLastUse[block] < lifetimeNanos) {
            return EXHAUSTED;
        }
        issued++;
        blockLastUse[block] = nowNanos;
        lastUse = nowNanos;
        return (start + offset) & 0xFFFF;
    }

    /**
     * Retires the window if none of its MIDs was used within the lifetime; a retired window
     * hands out nothing more, so a new window (with a new random start) cannot collide with it.
     */
    synchronized boolean retireIfIdle(long nowNanos, long lifetimeNanos) {
        if (!retired && nowNanos - lastUse >= lifetimeNanos) {
            retired = true;
        }
        return retired;
    }
}
