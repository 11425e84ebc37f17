package io.stagecoach.examples.cli;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.MessageInterceptor;
import java.io.PrintStream;

/**
 * {@code -v}: one line per message the client endpoint sends ({@code >}) or receives ({@code <}),
 * blocks and retransmissions included, as decoded (type, code, MID, token, options, payload size).
 */
final class WireTracer implements MessageInterceptor {

    private final PrintStream out;

    WireTracer(PrintStream out) {
        this.out = out;
    }

    @Override
    public void sendRequest(Request request) {
        line("> ", request);
    }

    @Override
    public void sendResponse(Response response) {
        line("> ", response);
    }

    @Override
    public void sendEmpty(EmptyMessage message) {
        line("> ", message);
    }

    @Override
    public void receiveRequest(Request request) {
        line("< ", request);
    }

    @Override
    public void receiveResponse(Response response) {
        line("< ", response);
    }

    @Override
    public void receiveEmpty(EmptyMessage message) {
        line("< ", message);
    }

    private void line(String direction, Message m) {
        out.println(direction + m);
    }
}
