package io.stagecoach.examples.faults;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;

/** Throws {@link InjectedFault} on an inbound request at the {@link FaultKind#LAYER_THROWS} rate. */
final class FaultyLayer extends AbstractLayer {
    private final FaultInjector faults;

    FaultyLayer(FaultInjector faults) {
        this.faults = faults;
    }

    @Override
    public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
        if (faults.inject(FaultKind.LAYER_THROWS)) {
            throw new InjectedFault(FaultKind.LAYER_THROWS);
        }
        super.receiveRequest(ctx, exchange, request);
    }
}
