package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.elements.time.Scheduler;
import java.time.Duration;
import java.util.Objects;

/**
 * {@code /separate} (§3.4, TD_COAP_CORE_09..11): a CON GET gets an empty ACK at once and its 2.05
 * ({@code REQINFO + "\n"}) as a separate CON response {@link #DELAY} later (RFC 7252 §5.2.2); a NON
 * GET gets a NON response after the same delay. The delay runs on the server's scheduler, so tests
 * on a virtual clock see it without waiting.
 */
final class SeparateResource extends CoapResource {

    /** The document asks for about 1 s (0.5..3 s). */
    static final Duration DELAY = Duration.ofSeconds(1);

    private final Scheduler scheduler;

    SeparateResource(Scheduler scheduler) {
        super("separate");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        title("Resource which cannot be served immediately and which cannot be acknowledged in a piggy-backed way");
        advertiseContentFormats(ContentFormat.TEXT_PLAIN);
    }

    @Override
    public void handleGET(CoapExchange exchange) {
        if (exchange.request().type() == Type.CON) {
            exchange.accept();
        }
        String text = PlugtestText.reqInfo(exchange.request()) + "\n";
        scheduler.schedule(() -> exchange.respond(text), DELAY);
    }
}
