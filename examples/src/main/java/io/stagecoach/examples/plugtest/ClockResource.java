package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * {@code /obs}, {@code /obs-non} and {@code /obs-large} (§3.9–3.11, TD_COAP_OBS_*): observable
 * resources (RFC 7641) whose value becomes the local time {@code HH:mm:ss} on every
 * {@link #tick()} (the plugtest's period {@code P}), notifying all observers.
 *
 * <ul>
 *   <li>GET: 2.05, Max-Age 5 (or {@code P} if longer), the value in its format; another Accept: 4.06.</li>
 *   <li>PUT ({@code /obs}, {@code /obs-non}; Content-Format required, else 4.00): 2.04; the payload
 *       is the value until the next tick. Same format: observers are notified (TD_COAP_OBS_09);
 *       another format: each observer gets a final 4.06 and is removed (RFC 7641 §3.2, OBS_08).</li>
 *   <li>DELETE ({@code /obs}, {@code /obs-non}): 2.02; each observer gets a final 4.04 and is removed
 *       (OBS_07). The resource stays, so later GETs and registrations work (plugtest convenience).</li>
 * </ul>
 * The large variant's value is 162 bytes (64 '-', the time padded to 32 characters, 64 '-'), so
 * with the plugtest's 64-byte blocks every answer and notification is block-wise.
 */
final class ClockResource extends CoapResource {

    /** Max-Age of every answer for {@code P} <= 5 s: the document's reference value. */
    static final long MAX_AGE_SECONDS = 5;
    static final DateTimeFormatter HH_MM_SS = DateTimeFormatter.ofPattern("HH:mm:ss");

    private final Clock wallClock;
    private final boolean large;
    private final boolean updatable;
    private final long maxAge;
    private Representation value;

    /**
     * @param confirmable CON notifications ({@code /obs}, {@code /obs-large}) or NON ({@code /obs-non})
     * @param large the 162-byte value of {@code /obs-large}; such a resource takes no PUT or DELETE
     * @param period the change period {@code P}: Max-Age is at least {@code P} (5 s at least)
     */
    ClockResource(String name, boolean confirmable, boolean large, Clock wallClock, Duration period) {
        super(name);
        // Rounded up: a value must stay fresh until the next change arrives.
        this.maxAge = Math.max(MAX_AGE_SECONDS, (period.toMillis() + 999) / 1000);
        this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
        this.large = large;
        this.updatable = !large;
        setObserveType(confirmable ? Type.CON : Type.NON);
        if (!large) {
            title("Observable resource which changes every 5 seconds");
        }
        resourceType("observe");
        setObservable(true);
        advertiseContentFormats(ContentFormat.TEXT_PLAIN);
        this.value = Representation.text(timeText());
    }

    /** The periodic change: the time becomes the value (format 0) and observers are notified. */
    void tick() {
        synchronized (this) {
            value = Representation.text(timeText());
            advertiseContentFormats(ContentFormat.TEXT_PLAIN);
        }
        changed();
    }

    /** The current value (for tests and the reset resource). */
    synchronized byte[] valueBytes() {
        return value.body();
    }

    @Override
    public void handleGET(CoapExchange exchange) {
        Representation r;
        synchronized (this) {
            r = value;
        }
        ContentFormat accept = exchange.acceptFormat();
        if (accept != null && !accept.equals(r.contentFormat())) {
            exchange.respond(Code.NOT_ACCEPTABLE);
            return;
        }
        exchange.respond(Code.CONTENT, spec -> spec.payload(r.body(), r.contentFormat()).maxAge(maxAge));
    }

    @Override
    public void handlePUT(CoapExchange exchange) {
        if (!updatable) {
            exchange.respond(Code.METHOD_NOT_ALLOWED);
            return;
        }
        ContentFormat format = exchange.requestContentFormat();
        if (format == null) {
            exchange.respond(Code.BAD_REQUEST, "Content-Format required");
            return;
        }
        boolean sameFormat;
        synchronized (this) {
            sameFormat = format.equals(value.contentFormat());
            value = new Representation(exchange.payload(), format);
            advertiseContentFormats(format);
        }
        exchange.respond(Code.CHANGED);
        if (sameFormat) {
            changed();
        } else {
            clearAndNotifyObservers(Code.NOT_ACCEPTABLE);
        }
    }

    @Override
    public void handleDELETE(CoapExchange exchange) {
        if (!updatable) {
            exchange.respond(Code.METHOD_NOT_ALLOWED);
            return;
        }
        exchange.respond(Code.DELETED);
        clearAndNotifyObservers(Code.NOT_FOUND);
    }

    private String timeText() {
        String time = LocalTime.now(wallClock).format(HH_MM_SS);
        if (!large) {
            return time;
        }
        String rule = "-".repeat(64);
        return rule + "\n" + String.format("%-32s", time) + "\n" + rule;
    }

    static int largeValueLength() {
        return 64 + 1 + 32 + 1 + 64;
    }
}
