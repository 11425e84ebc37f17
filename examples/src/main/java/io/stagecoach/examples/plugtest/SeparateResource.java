package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code /separate} (§3.4, TD_COAP_CORE_09..11): a CON GET gets an empty ACK at once and its 2.05
 * ({@code REQINFO + "\n"}) as a separate CON response {@link #DELAY} later (RFC 7252 §5.2.2); a NON
 * GET gets a NON response after the same delay. The delay runs on the server's scheduler, so tests
 * on a virtual clock see it without waiting.
 *
 * <p>Each GET holds its exchange and a scheduled task for the delay, so at most
 * {@link #MAX_PENDING} wait at a time: a GET beyond is answered at once with 5.03 and Max-Age 1
 * (RFC 7252 §5.9.3.4), so a flood of GETs cannot make the server hold an unbounded number of them.
 */
final class SeparateResource extends CoapResource {

    /** The document asks for about 1 s (0.5..3 s). */
    static final Duration DELAY = Duration.ofSeconds(1);

    /** Separate responses waiting for their delay at a time. */
    static final int MAX_PENDING = 1000;

    private final Scheduler scheduler;
    private final int maxPending;
    private final AtomicInteger pending = new AtomicInteger();

    SeparateResource(Scheduler scheduler) {
        this(scheduler, MAX_PENDING);
    }

    /** @param maxPending separate responses that may wait at a time (tests use a small one) */
    SeparateResource(Scheduler scheduler, int maxPending) {
        super("separate");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.maxPending = maxPending;
        title("Resource which cannot be served immediately and which cannot be acknowledged in a piggy-backed way");
        advertiseContentFormats(ContentFormat.TEXT_PLAIN);
    }

    @Override
    public void handleGET(CoapExchange exchange) {
        if (pending.incrementAndGet() > maxPending) {
            pending.decrementAndGet();
            exchange.respond(Code.SERVICE_UNAVAILABLE, r -> r.maxAge(1));
            return;
        }
        if (exchange.request().type() == Type.CON) {
            exchange.accept();
        }
        String text = PlugtestText.reqInfo(exchange.request()) + "\n";
        scheduler.schedule(() -> {
            pending.decrementAndGet();
            exchange.respond(text);
        }, DELAY);
    }

    /** Separate responses waiting now (for tests). */
    int pending() {
        return pending.get();
    }
}
