package io.stagecoach.core.server;

import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records what the resource stage asks the endpoint to send, with the calling thread. */
final class FakeResponder implements ExchangeResponder {

    enum Kind { RESPOND, ACCEPT, REJECT }

    record Call(Kind kind, Exchange exchange, Response response, String thread) {
    }

    private final LinkedBlockingQueue<Call> calls = new LinkedBlockingQueue<>();
    private final List<Call> all = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    public void respond(Exchange exchange, Response response) {
        record(new Call(Kind.RESPOND, exchange, response, Thread.currentThread().getName()));
    }

    @Override
    public void accept(Exchange exchange) {
        record(new Call(Kind.ACCEPT, exchange, null, Thread.currentThread().getName()));
    }

    @Override
    public void reject(Exchange exchange) {
        record(new Call(Kind.REJECT, exchange, null, Thread.currentThread().getName()));
    }

    private void record(Call c) {
        all.add(c);
        calls.add(c);
    }

    /** The next call, waiting up to 5 s for one made on another thread; fails if none. */
    Call next() {
        try {
            Call c = calls.poll(5, TimeUnit.SECONDS);
            if (c == null) {
                throw new AssertionError("no call to the responder within 5 s; calls so far: " + all);
            }
            return c;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The next call, which must be a response. */
    Response nextResponse() {
        Call c = next();
        if (c.kind() != Kind.RESPOND) {
            throw new AssertionError("expected a response, got " + c);
        }
        return c.response();
    }

    /** Calls not yet taken with {@link #next()}. */
    int pending() {
        return calls.size();
    }

    List<Call> all() {
        synchronized (all) {
            return List.copyOf(all);
        }
    }
}
