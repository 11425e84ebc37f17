package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * {@code /obs-reset} (§3.13, TD_COAP_OBS_04): POST with the server's reset secret as payload drops
 * every observation of the observable resources without telling the observers (the server "loses
 * its state"); with Uri-Query {@code notfound} each observer gets a final 4.04 instead. Answers
 * 2.04; any other payload 4.03.
 *
 * <p>The conformance document's payload is {@code sesame}; this server has no built-in secret,
 * because anyone who knows it can cut off every observer of the server. The secret comes from the
 * operator ({@code ./stagecoach server --obs-reset-secret sesame} for a plugtest session); without
 * one, every POST is answered 4.03 with a diagnostic payload saying how to enable the reset. The
 * payload is compared in constant time.
 */
final class ObsResetResource extends CoapResource {

    static final String DISABLED = "reset disabled: start the server with --obs-reset-secret";

    private final List<ClockResource> observables;
    /** The secret's UTF-8 bytes, or null: the reset is disabled. */
    private final byte[] secret;

    ObsResetResource(List<ClockResource> observables, String secret) {
        super("obs-reset");
        this.observables = List.copyOf(observables);
        this.secret = secret == null ? null : secret.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void handlePOST(CoapExchange exchange) {
        if (secret == null) {
            exchange.respond(Code.FORBIDDEN, DISABLED);
            return;
        }
        if (!MessageDigest.isEqual(secret, exchange.payload())) {
            exchange.respond(Code.FORBIDDEN);
            return;
        }
        boolean notFound = exchange.options().uriQuery().contains("notfound");
        for (ClockResource r : observables) {
            if (notFound) {
                r.clearAndNotifyObservers(Code.NOT_FOUND);
            } else {
                r.clearObservers();
            }
        }
        exchange.respond(Code.CHANGED);
    }
}
