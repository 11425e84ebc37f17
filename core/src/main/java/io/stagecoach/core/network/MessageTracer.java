package io.stagecoach.core.network;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports each message an endpoint sends or receives, one call per message. By default it logs
 * one line at DEBUG on logger {@code io.stagecoach.trace}, for example
 * {@code <- /127.0.0.1:5683 CON-0.01 GET MID=4660 T=0102 [Uri-Path: test] 0 bytes}; the check
 * {@code isDebugEnabled()} comes first, so the tracer costs nothing when the level is off. A
 * {@link Sink} sends the messages elsewhere (the command-line client prints them with {@code -v}).
 */
public final class MessageTracer implements MessageInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger("io.stagecoach.trace");

    /** Receives each traced message with its direction. */
    @FunctionalInterface
    public interface Sink {
        void trace(boolean outgoing, Message message);
    }

    private final Sink sink;

    /** Traces to the DEBUG log. */
    public MessageTracer() {
        this(MessageTracer::log);
    }

    public MessageTracer(Sink sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    @Override
    public void sendRequest(Request request) {
        sink.trace(true, request);
    }

    @Override
    public void sendResponse(Response response) {
        sink.trace(true, response);
    }

    @Override
    public void sendEmpty(EmptyMessage message) {
        sink.trace(true, message);
    }

    @Override
    public void receiveRequest(Request request) {
        sink.trace(false, request);
    }

    @Override
    public void receiveResponse(Response response) {
        sink.trace(false, response);
    }

    @Override
    public void receiveEmpty(EmptyMessage message) {
        sink.trace(false, message);
    }

    private static void log(boolean outgoing, Message m) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} {} {}", outgoing ? "->" : "<-", m.peer() == null ? "?" : m.peer().peer(), m);
        }
    }
}
