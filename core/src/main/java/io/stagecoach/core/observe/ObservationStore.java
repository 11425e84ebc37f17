package io.stagecoach.core.observe;

import io.stagecoach.core.coap.Token;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Established observations (RFC 7641 §3.1) by token, shared by the nodes of a cluster, so that a
 * notification that reaches any node is matched to its observation (docs/cluster.md).
 *
 * <p>Every method returns at once; the stage completes on the store's thread. The endpoint hands a
 * looked-up notification back to its protocol stage, and holds an exchange
 * ({@code Exchange.execute}) before it touches it, so completing on any thread is safe; a store
 * should not block in its completion thread, which may run the endpoint's work when the endpoint
 * runs its protocol inline.
 *
 * <p>A stage that fails is logged (lookups, restores and removals by the endpoint are also counted
 * in {@code observe.store_errors}); after a failed lookup the
 * notification is dropped without a RST, so that an outage of the store does not end observations
 * (RFC 7641 §3.6: a RST ends one at the server); a CON notification comes back with its
 * retransmission.
 *
 * <p>Tokens must be unique across the nodes: the endpoint's are random 8-byte ones by default
 * ({@code coap.token-length}), which collide with a probability of about n²/2⁶⁵ for n
 * observations.
 */
public interface ObservationStore {

    /** Stores {@code observation} under its token, replacing one stored before. */
    CompletionStage<Void> put(Observation observation);

    /** The observation of {@code token}; the stage completes with {@code null} when there is none. */
    CompletionStage<Observation> get(Token token);

    /** Forgets the observation of {@code token}, if any. */
    CompletionStage<Void> remove(Token token);

    /**
     * The observations this node stored (the implementation knows which node it serves), for an
     * endpoint that starts again after a restart.
     */
    CompletionStage<List<Observation>> restore();
}
