package io.stagecoach.core.network.stack;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.util.random.RandomGenerator;

/** What an endpoint lends the layers of its stack. */
public interface StackServices {

    /** The endpoint's clock and timer (virtual in tests). */
    Scheduler scheduler();

    /** The endpoint's configuration. */
    Configuration config();

    /** Randomness for timeouts (seeded in tests and simulations). */
    RandomGenerator random();

    /** The endpoint's counters. */
    EndpointCounters counters();

    /**
     * Runs {@code task} on the protocol stage, holding {@code exchange} (see
     * {@link Exchange#execute(Runnable)}). Timers use this to get back onto a protocol thread.
     */
    void execute(Exchange exchange, Runnable task);

    /**
     * Whether the upper stage would serve {@code request} (for a server: a resource exists at its
     * path and takes its method), so that a layer keeps state, such as a block-wise upload, only
     * for requests that can succeed. Default: {@code true}.
     */
    default boolean accepts(Request request) {
        return true;
    }

    /**
     * Bytes the endpoint may still send in answer to {@code exchange}'s request if the peer's
     * address is not verified: factor × the request's size minus what went out already (RFC 7252
     * §11.3); {@code Long.MAX_VALUE} when the limit is off or the exchange is this endpoint's own
     * request. Cheap; a layer producing a larger answer asks {@link #isAddressVerified} next, and
     * sizes the answer to fit (a first block) only if the address is not. The endpoint holds every
     * datagram to the limit in any case.
     */
    default long amplificationBudget(Exchange exchange) {
        return Long.MAX_VALUE;
    }

    /**
     * An Echo value (RFC 9175 §2.2) for a response to {@code peer}, which the peer proves its
     * address with by sending it back in a request; {@code null} when the endpoint issues none.
     * A layer that answers an unverified address within the amplification limit (a smaller first
     * block) adds it, so that the client's next request verifies the address.
     */
    default byte[] echoChallenge(InetSocketAddress peer) {
        return null;
    }

    /**
     * Whether {@code peer} proved it receives at its address (an Echo round trip, an ACK to one of
     * our Confirmable messages; RFC 9175 §2.4). Default {@code true}.
     */
    default boolean isAddressVerified(InetSocketAddress peer) {
        return true;
    }

    /** Records evidence that {@code peer} receives at its address, e.g. its ACK to our CON. */
    default void addressVerified(InetSocketAddress peer) {
    }

    /**
     * Reports a request refused because {@code peer} went over a limit (block-wise body size or
     * transfers, observe relations per peer: see {@code RequestLimits}). The endpoint counts it as
     * {@code LIMIT_EXCEEDED} and logs it on the {@code io.stagecoach.ban} logger at most once a
     * minute per peer address; this default only counts.
     */
    default void limitExceeded(InetSocketAddress peer, String reason) {
        counters().increment(EndpointCounters.Counter.LIMIT_EXCEEDED);
    }
}
