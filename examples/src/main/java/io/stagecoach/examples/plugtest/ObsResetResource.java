package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import java.util.List;

/**
 * {@code /obs-reset} (§3.13, TD_COAP_OBS_04): POST {@code sesame} drops every observation of the
 * observable resources without telling the observers (the server "loses its state"); with
 * Uri-Query {@code notfound} each observer gets a final 4.04 instead. Answers 2.04; any other
 * payload 4.03.
 */
final class ObsResetResource extends CoapResource {

    private final List<ClockResource> observables;

    ObsResetResource(List<ClockResource> observables) {
        super("obs-reset");
        this.observables = List.copyOf(observables);
    }

    @Override
    public void handlePOST(CoapExchange exchange) {
        if (!"sesame".equals(exchange.payloadText())) {
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
