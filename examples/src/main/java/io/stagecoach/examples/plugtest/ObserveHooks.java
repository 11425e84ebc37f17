package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.server.CoapResource;

/**
 * The three things the plugtest's observable resources ask of the observe machinery (RFC 7641),
 * in one place: notify every observer of a change (§4.2), end every observation with a final
 * error notification without Observe (§3.2, §4.2), and forget every observation silently (the
 * "server lost its state" of TD_COAP_OBS_04).
 *
 * <p>Observe support (CoapResource.changed() and friends) is being added to core by another
 * branch; until it is merged these hooks only count their calls, so the resources compile and
 * their non-observe behaviour can be tested.
 */
final class ObserveHooks {

    private final CoapResource resource;
    private final boolean confirmable;
    private volatile int notifications;
    private volatile int endings;
    private volatile int drops;

    ObserveHooks(CoapResource resource, boolean confirmable) {
        this.resource = resource;
        this.confirmable = confirmable;
    }

    /** Whether notifications go as CON ({@code /obs}) or NON ({@code /obs-non}). */
    boolean confirmable() {
        return confirmable;
    }

    void notifyObservers() {
        notifications++;
    }

    void endObservations(Code code) {
        endings++;
    }

    void dropObservations() {
        drops++;
    }

    int notifications() {
        return notifications;
    }

    int endings() {
        return endings;
    }

    int drops() {
        return drops;
    }

    @Override
    public String toString() {
        return "ObserveHooks[" + resource.uri() + "]";
    }
}
