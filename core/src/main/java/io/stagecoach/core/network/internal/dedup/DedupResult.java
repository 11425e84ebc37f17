package io.stagecoach.core.network.internal.dedup;

import java.util.Objects;

/**
 * Outcome of {@link DeduplicationStore#lookupOrInsert}: whether a received message is new, a
 * duplicate (and what to answer), or could not be remembered.
 *
 * <p>Immutable. The states without a reply are shared constants, so a lookup allocates only
 * when it returns a stored reply.
 */
public final class DedupResult {

    /** What the caller must do with the received message. */
    public enum Status {
        /** First sighting: process the request, then call {@code complete...} or {@code forget}. */
        NEW,
        /**
         * Duplicate of a message whose processing has not completed: answer nothing (or an empty
         * ACK if the caller knows a separate response is pending), never process it again.
         */
        IN_FLIGHT,
        /** Duplicate of a completed message: resend {@link #reply()} or an empty ACK. */
        DONE,
        /**
         * The store is full for this message's source, or full in total and nothing could be
         * evicted: the message was not remembered and must not be processed; the endpoint
         * answers 5.03 Service Unavailable with Max-Age.
         */
        OVERLOADED,
        /** Internal to the store: full in total; it evicts and tries again, never returning this. */
        FULL
    }

    static final DedupResult NEW = new DedupResult(Status.NEW, null, false);
    static final DedupResult IN_FLIGHT = new DedupResult(Status.IN_FLIGHT, null, false);
    static final DedupResult OVERLOADED = new DedupResult(Status.OVERLOADED, null, false);
    static final DedupResult FULL = new DedupResult(Status.FULL, null, false);
    static final DedupResult DONE_EMPTY_ACK = new DedupResult(Status.DONE, null, true);

    private final Status status;
    private final byte[] reply;
    private final boolean emptyAck;

    private DedupResult(Status status, byte[] reply, boolean emptyAck) {
        this.status = status;
        this.reply = reply;
        this.emptyAck = emptyAck;
    }

    static DedupResult done(byte[] reply) {
        return new DedupResult(Status.DONE, Objects.requireNonNull(reply, "reply"), false);
    }

    public Status status() {
        return status;
    }

    /**
     * The encoded reply stored by {@link DeduplicationStore#complete} when the status is
     * {@link Status#DONE} and the reply was not an empty ACK; otherwise {@code null}. The array
     * is the stored one, not a copy: send it, never modify it.
     */
    public byte[] reply() {
        return reply;
    }

    /**
     * {@code true} when the status is {@link Status#DONE} and the exchange was completed by
     * {@link DeduplicationStore#completeEmptyAck}: resend an empty ACK for the duplicate's MID.
     */
    public boolean emptyAck() {
        return emptyAck;
    }

    @Override
    public String toString() {
        if (status != Status.DONE) {
            return status.name();
        }
        return emptyAck ? "DONE(empty ACK)" : "DONE(" + reply.length + " bytes)";
    }
}
