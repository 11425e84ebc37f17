package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeTimeoutException;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.MessageIdProvider;
import io.stagecoach.core.network.internal.MidExhaustedException;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * CoAP ping (RFC 7252 §4.3): an Empty CON registered in the exchange store by (peer, MID); the RST
 * the peer must answer with completes the exchange normally, the timer fails it with
 * {@link ExchangeTimeoutException}. Sent once, without retransmission: a ping asks "are you there
 * now?", and the caller's timeout bounds the wait.
 *
 * <p>The exchange carries a placeholder GET (an {@link Exchange} always has a request); the
 * {@link #MARK} slot tells {@link Inbound} to complete it on the RST without involving the layers.
 */
final class Ping {

    static final Exchange.Slot<Boolean> MARK = new Exchange.Slot<>("ping", Boolean.class);

    private Ping() {
    }

    static boolean isPing(Exchange exchange) {
        return Boolean.TRUE.equals(exchange.get(MARK));
    }

    /** Sends the ping from the calling thread; the returned exchange completes as described above. */
    static Exchange send(EndpointContext peer, Duration timeout, Scheduler scheduler, MessageIdProvider mids,
            ExchangeStore store, Outbox outbox) {
        return send(peer, timeout, scheduler, mids, store, outbox, e -> { });
    }

    /** As above; {@code setup} marks the ping's exchange before it can be answered. */
    static Exchange send(EndpointContext peer, Duration timeout, Scheduler scheduler, MessageIdProvider mids,
            ExchangeStore store, Outbox outbox, Consumer<Exchange> setup) {
        Request placeholder = Request.get().peer(peer).build();
        Exchange exchange = new Exchange(Exchange.Origin.LOCAL, placeholder, peer, scheduler.nanoTime(), null);
        exchange.execute(() -> {
            int mid;
            try {
                mid = mids.nextMid(peer.peer(), scheduler.nanoTime());
            } catch (MidExhaustedException e) {
                exchange.fail(e);
                return;
            }
            exchange.set(MARK, Boolean.TRUE);
            setup.accept(exchange);
            store.registerMid(exchange, mid);
            Cancellable timer = scheduler.schedule(() -> exchange.execute(() -> exchange.fail(
                    new ExchangeTimeoutException("no RST from " + peer.peer() + " to ping MID " + mid
                            + " within " + timeout.toMillis() + " ms"))), timeout);
            exchange.whenComplete(timer::cancel);
            outbox.sendDirect(peer, EmptyMessage.ping(mid).withPeer(peer));
        });
        return exchange;
    }
}
