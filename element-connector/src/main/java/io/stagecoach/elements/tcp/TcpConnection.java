package io.stagecoach.elements.tcp;

import io.netty.channel.Channel;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.StreamConnector;
import io.stagecoach.elements.StreamFramer;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One connection of a {@link NettyTcpConnector}: the registry holds it from creation (a client:
 * before connecting) to its end. Fields marked "event loop" are touched only on its channel's
 * event loop; the send queue before readiness is guarded by the object's monitor.
 */
final class TcpConnection {

    final long id;
    final InetSocketAddress peer;
    /** The peer with {@link StreamConnector#CONNECTION_ID}: what received frames carry. */
    final EndpointContext context;
    /** Whole frames, handed to the connector's receiver. */
    final Consumer<byte[]> frames;
    volatile Channel channel;
    /** Event loop: the endpoint's framer of this stream, {@code null} for WebSockets. */
    StreamFramer framer;
    /** Event loop: the handler's object for this connection, carried by each received frame. */
    Object attachment;
    /** Event loop: the framer refused the stream; nothing more is read. */
    boolean failed;
    /** Event loop: inside a read batch; writes wait for its end to be flushed together. */
    boolean reading;
    /** Event loop: something was written without a flush in the current read batch. */
    boolean flushPending;
    /** Event loop: the connection handler is being told of the opening (its sends go first). */
    volatile boolean opening;
    /** Set once the handler heard of the opening and the queue was written; read without the lock. */
    volatile boolean ready;
    boolean ended; // guarded by this
    boolean openedCalled;
    List<RawData> queued = new ArrayList<>(2); // guarded by this
    int queuedBytes; // guarded by this

    /** @param delivery what to do with each whole frame of this connection */
    TcpConnection(long id, InetSocketAddress peer, FrameDelivery delivery) {
        this.id = id;
        this.peer = peer;
        this.context = EndpointContext.of(peer).withAttribute(StreamConnector.CONNECTION_ID, id);
        this.frames = frame -> delivery.deliver(this, frame);
    }

    /** Where a connection's frames go (the connector's receiver). */
    @FunctionalInterface
    interface FrameDelivery {
        void deliver(TcpConnection connection, byte[] frame);
    }

    @Override
    public String toString() {
        return "connection " + id + " " + peer;
    }
}
