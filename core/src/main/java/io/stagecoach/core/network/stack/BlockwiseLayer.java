package io.stagecoach.core.network.stack;

/**
 * RFC 7959 block-wise transfers. Pass-through in this release; the blockwise issue fills it. It
 * holds its place in the stack so that the order of layers users build on is already the final one.
 */
public final class BlockwiseLayer extends AbstractLayer {
}
