package io.stagecoach.core.network;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs each message in one line at DEBUG on logger {@code io.stagecoach.trace}, for example
 * {@code <- /127.0.0.1:5683 CON-0.01 GET MID=4660 T=0102 [Uri-Path: test] 0 bytes}. The check
 * {@code isDebugEnabled()} comes first, so the tracer costs nothing when the level is off.
 */
public final class MessageTracer implements MessageInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger("io.stagecoach.trace");

    @Override
    public void sendRequest(Request request) {
        trace("->", request);
    }

    @Override
    public void sendResponse(Response response) {
        trace("->", response);
    }

    @Override
    public void sendEmpty(EmptyMessage message) {
        trace("->", message);
    }

    @Override
    public void receiveRequest(Request request) {
        trace("<-", request);
    }

    @Override
    public void receiveResponse(Response response) {
        trace("<-", response);
    }

    @Override
    public void receiveEmpty(EmptyMessage message) {
        trace("<-", message);
    }

    private static void trace(String direction, Message m) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} {} {}", direction, m.peer() == null ? "?" : m.peer().peer(), m);
        }
    }
}
