package io.stagecoach.core.network.stack;

/**
 * RFC 7641 Observe: relations, notification ordering and re-registration. Pass-through in this
 * release; the observe issue fills it. It holds its place in the stack so that the order of layers
 * users build on is already the final one.
 */
public final class ObserveLayer extends AbstractLayer {
}
