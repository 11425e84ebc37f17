package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;

/**
 * Top of the stack: completes a client exchange when its final response arrives, before the
 * response goes up, so that the exchange's store keys, timers and NSTART slot are free by the time
 * the application sees the answer. A 2.xx response carrying Observe is a notification and leaves
 * the exchange open (RFC 7641 §3.2); the observe layer decides when a relation ends.
 */
public final class ExchangeCleanupLayer extends AbstractLayer {

    @Override
    public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
        if (!(response.code().isSuccess() && response.options().has(OptionNumber.OBSERVE))) {
            exchange.complete();
        }
        ctx.receiveResponse(exchange, response);
    }

    /** Holds exchanges only through its slot state, completion hooks and the store (which hooks). */
    @Override
    public boolean keepsExchanges() {
        return false;
    }
}
