package io.stagecoach.elements;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One datagram with the context of its peer: what a {@link Connector} receives or sends.
 *
 * <p>Immutable. The factories take ownership of the byte array without copying (the hot path
 * copies each datagram exactly once, from the socket buffer into this array); the caller must not
 * modify the array afterwards. Readers get a {@linkplain #buffer() read-only view}, a
 * {@linkplain #bytes() copy}, or, on the receive path, the {@linkplain #sharedBytes() array itself}.
 */
public final class RawData {

    private static final Logger LOG = LoggerFactory.getLogger(RawData.class);

    private final byte[] bytes;
    private final EndpointContext context;
    private final SendCallback callback;
    private final long receiveNanos;
    private final Object attachment;

    private RawData(byte[] bytes, EndpointContext context, SendCallback callback, long receiveNanos,
            Object attachment) {
        this.bytes = Objects.requireNonNull(bytes, "bytes");
        this.context = Objects.requireNonNull(context, "context");
        this.callback = callback;
        this.receiveNanos = receiveNanos;
        this.attachment = attachment;
    }

    /**
     * A received datagram.
     *
     * @param context      the sender
     * @param receiveNanos the reading of the connector's {@link io.stagecoach.elements.time.Clock}
     *                     when the datagram was taken from the socket
     */
    public static RawData inbound(byte[] bytes, EndpointContext context, long receiveNanos) {
        return new RawData(bytes, context, null, receiveNanos, null);
    }

    /**
     * A frame received on a connection of a {@link StreamConnector}, with what the
     * {@link ConnectionHandler} {@linkplain ConnectionHandler#attachment attached} to it.
     *
     * @param attachment the handler's object for the connection; may be {@code null}
     */
    public static RawData inbound(byte[] bytes, EndpointContext context, long receiveNanos, Object attachment) {
        return new RawData(bytes, context, null, receiveNanos, attachment);
    }

    /**
     * A datagram to send.
     *
     * @param context  the destination
     * @param callback told whether the datagram left; may be {@code null}
     */
    public static RawData outbound(byte[] bytes, EndpointContext context, SendCallback callback) {
        return new RawData(bytes, context, callback, 0L, null);
    }

    /** Number of payload bytes. */
    public int size() {
        return bytes.length;
    }

    /** A read-only view of the bytes, positioned at 0; no copy. */
    public ByteBuffer buffer() {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }

    /** A fresh copy of the bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /**
     * The array itself, without a copy: for the decoder on the receive path, where the copy of
     * {@link #bytes()} cost one array per datagram (size + 16 B), and for a connector copying an
     * outbound datagram into its socket buffer. Ownership stays shared: nobody, neither the caller
     * nor this class, may ever modify it, so the caller may keep referring to it (a parsed message
     * may share its option bytes) and this object stays immutable.
     */
    public byte[] sharedBytes() {
        return bytes;
    }

    /** The peer: sender of inbound data, destination of outbound data. */
    public EndpointContext context() {
        return context;
    }

    /** The callback of outbound data, or {@code null}. */
    public SendCallback callback() {
        return callback;
    }

    /**
     * Inbound data of a stream connection: the {@link ConnectionHandler}'s object for that
     * connection ({@link ConnectionHandler#attachment}); otherwise {@code null}.
     */
    public Object attachment() {
        return attachment;
    }

    /** Clock reading at reception; {@code 0} for outbound data. */
    public long receiveNanos() {
        return receiveNanos;
    }

    /** Tells the callback (if any) that the datagram left; a throwing callback is logged. */
    public void notifySent() {
        if (callback != null) {
            try {
                callback.onSent();
            } catch (RuntimeException e) {
                LOG.warn("SendCallback.onSent of {} threw", this, e);
            }
        }
    }

    /** Tells the callback (if any) that the datagram was not sent; a throwing callback is logged. */
    public void notifyFailed(Throwable cause) {
        if (callback != null) {
            try {
                callback.onFailed(cause);
            } catch (RuntimeException e) {
                LOG.warn("SendCallback.onFailed of {} threw", this, e);
            }
        }
    }

    @Override
    public String toString() {
        return "RawData[" + bytes.length + " bytes, " + context + "]";
    }
}
