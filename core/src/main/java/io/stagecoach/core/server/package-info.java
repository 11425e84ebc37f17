/**
 * The resource stage (Lanter thesis §5.4): a {@link io.stagecoach.core.server.ResourceTree} of
 * {@link io.stagecoach.core.server.Resource}s, the {@link io.stagecoach.core.server.ServerMessageDeliverer}
 * that takes requests from the top of the layer stack and runs handlers inline or on a resource's
 * executor, the {@link io.stagecoach.core.server.CoapExchange} handlers answer with, and CoRE
 * discovery ({@link io.stagecoach.core.server.WellKnownCoreResource}, RFC 6690). The endpoint
 * plugs in through {@link io.stagecoach.core.server.ExchangeResponder}.
 */
package io.stagecoach.core.server;
