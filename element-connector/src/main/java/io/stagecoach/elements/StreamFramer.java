package io.stagecoach.elements;

import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Cuts the byte stream of one connection into whole frames for a {@link StreamConnector}, which
 * knows nothing of the protocol above it: the endpoint supplies one framer per connection
 * through {@link ConnectionHandler#opened}, and the connector hands every chunk it reads to
 * {@link #read}. Each whole frame then reaches the connector's {@link RawDataReceiver} as one
 * {@link RawData}. Message transports (WebSockets) carry whole frames already and do not use it.
 *
 * <p>Called on the connection's I/O thread only, one chunk at a time: implementations need no
 * locking. A framer must bound what it buffers and refuse a frame it will not take before
 * buffering it.
 */
public interface StreamFramer {

    /**
     * Consumes all remaining bytes of {@code chunk} (its position advances to its limit) and
     * passes each frame completed on the way to {@code frames}, in order. The framer owns the
     * arrays it passes; the connector hands them on without a copy.
     *
     * @throws FramingException when the stream cannot go on: the connector writes
     *     {@link FramingException#lastWords()} (if any) and closes the connection
     */
    void read(ByteBuffer chunk, Consumer<byte[]> frames) throws FramingException;
}
