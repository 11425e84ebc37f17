package io.stagecoach.core.observe;

import io.stagecoach.core.coap.Response;

/**
 * Hears the notifications an endpoint matches through its {@link ObservationStore}: those of
 * observations another node (or this node before a restart) registered, which no
 * {@code CoapObserveRelation} of this process waits for. Called on a protocol thread, in order for
 * one observation, with fresh notifications only (RFC 7641 §3.4); do not block.
 */
@FunctionalInterface
public interface NotificationListener {

    /**
     * A notification of {@code observation}. A final one (not 2.xx, or without Observe: RFC 7641
     * §3.2) ends the observation: the endpoint has removed it from the store already.
     */
    void onNotification(Observation observation, Response response);
}
