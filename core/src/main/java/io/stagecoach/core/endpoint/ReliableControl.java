package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.codec.TcpMessageSerializer;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.StreamConnector;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Sends signals on a connection and ends it: Abort (RFC 8323 §5.6), Release (§5.5), close. */
final class ReliableControl {

    private static final Logger LOG = LoggerFactory.getLogger(ReliableTransport.class);

    private final StreamConnector connector;
    private final TcpMessageSerializer serializer;
    private final LongAdder abortsSent;

    ReliableControl(StreamConnector connector, TcpMessageSerializer serializer, LongAdder abortsSent) {
        this.connector = connector;
        this.serializer = serializer;
        this.abortsSent = abortsSent;
    }

    void send(EndpointContext to, SignalingMessage signal) {
        connector.send(RawData.outbound(serializer.serialize(signal), to, null));
    }

    /** Sends Abort and closes; nothing more is processed from the connection. */
    void abort(ReliableConnection c, int badCsmOption, String diagnostic) {
        abort(c, SignalingMessage.abort(badCsmOption, diagnostic));
    }

    void abort(ReliableConnection c, SignalingMessage abort) {
        if (c.closing || c.context == null) {
            return;
        }
        c.closing = true;
        abortsSent.increment();
        LOG.debug("aborting {}: {}", c, abort.diagnostic());
        send(c.context, abort);
        connector.close(c.context);
    }

    /** Sends Release and closes. */
    void release(ReliableConnection c, String diagnostic) {
        if (c.closing || c.context == null) {
            return;
        }
        c.closing = true;
        send(c.context, SignalingMessage.release(List.of(), -1, diagnostic));
        connector.close(c.context);
    }

    /** Closes {@code c} once it has no exchange left (after the peer's Release). */
    void closeWhenDone(ReliableConnection c) {
        if (c.exchanges.isEmpty() && c.context != null && !c.closing) {
            c.closing = true;
            connector.close(c.context);
        }
    }

    /** Closes {@code c} at once, after what was sent to it (the peer aborted). */
    void close(ReliableConnection c) {
        c.closing = true;
        connector.close(c.context);
    }
}
