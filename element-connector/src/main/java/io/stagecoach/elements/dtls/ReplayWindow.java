package io.stagecoach.elements.dtls;

/**
 * The anti-replay window of one epoch (RFC 6347 §4.1.2.6): the highest authenticated sequence
 * number and a bitmap of the 64 below it. {@link #isFresh} is checked before decrypting,
 * {@link #accept} only after the record authenticated, so a forged record moves nothing. Not
 * thread-safe: the session's receive lock guards it.
 */
final class ReplayWindow {

    /** RFC 6347 §4.1.2.6: "a window size of 32 MUST be supported, 64 is preferred". */
    public static final int SIZE = 64;

    private long highest = -1;
    private long bitmap;

    /** Whether {@code seq} (48-bit) is newer than the window or inside it and not seen yet. */
    public boolean isFresh(long seq) {
        if (seq > highest) {
            return true;
        }
        long age = highest - seq;
        return age < SIZE && (bitmap & (1L << age)) == 0;
    }

    /**
     * Marks {@code seq} as received (after authentication).
     *
     * @return whether it is the newest so far (RFC 9146 §6: only such a record may move the peer)
     */
    public boolean accept(long seq) {
        if (seq > highest) {
            long shift = seq - highest;
            bitmap = shift >= SIZE ? 1L : (bitmap << shift) | 1L;
            highest = seq;
            return true;
        }
        bitmap |= 1L << (highest - seq);
        return false;
    }

    /** The highest authenticated sequence number, -1 before the first. */
    public long highest() {
        return highest;
    }
}
