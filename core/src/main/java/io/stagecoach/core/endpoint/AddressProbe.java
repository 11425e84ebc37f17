package io.stagecoach.core.endpoint;

import io.stagecoach.core.network.Exchange;

/**
 * A CoAP ping (RFC 7252 §4.3) sent for an exchange whose next message the amplification limit
 * holds back (RFC 7252 §11.3): typically a CON registration answer or notification whose ACK the
 * observer sent but the server never received, so that its retransmission no longer fits three
 * times the registration. Waiting cannot help (the peer has nothing more to say), and the held
 * message cannot go out, so the exchange would stay silent until its CON times out.
 *
 * <p>The ping is four bytes and is sent only within the exchange's budget; a silent spoofing
 * victim thus still receives at most factor × the request. An answer to it (the RST every CoAP
 * endpoint gives an Empty CON, or an ACK) shows that a CoAP endpoint receives at the address,
 * which lets the exchange send its held message once more beyond the limit. It does not verify
 * the address for other exchanges: it proves reception, not that the peer asked for anything
 * (a CoAP endpoint that did not register rejects the held message with RST, which ends the
 * exchange). One probe per exchange at a time, one answered probe per exchange ever, so what
 * a live CoAP endpoint at a spoofed address can be made to receive is factor × the request plus
 * one message. The peer's ACK to that message verifies its address (RFC 9175 §2.4).
 *
 * <p>State of the held exchange, in its {@link #SLOT}; the ping's own exchange points back to it.
 */
final class AddressProbe {

    static final Exchange.Slot<AddressProbe> SLOT = new Exchange.Slot<>("address-probe", AddressProbe.class);
    /** In the ping's exchange: the probe it belongs to. */
    static final Exchange.Slot<AddressProbe> OF_PING = new Exchange.Slot<>("address-probe-ping", AddressProbe.class);

    private final Exchange held;
    private volatile boolean inFlight;
    private volatile boolean answered;
    private volatile boolean granted;
    private volatile boolean spent;

    AddressProbe(Exchange held) {
        this.held = held;
    }

    /** The exchange whose message waits for the answer. */
    Exchange held() {
        return held;
    }

    /** Whether a ping may go out now: none is waiting and none was answered before. */
    boolean maySend() {
        return !inFlight && !answered;
    }

    void sent() {
        inFlight = true;
    }

    /** The ping ended without an answer (timed out or could not be sent). */
    void unanswered() {
        inFlight = false;
    }

    /**
     * The ping was answered: the held exchange may send one message beyond the limit.
     *
     * @return {@code false} if it had been answered before (a duplicate RST)
     */
    synchronized boolean answer() {
        inFlight = false;
        if (answered) {
            return false;
        }
        answered = true;
        granted = true;
        return true;
    }

    /** Takes the one message beyond the limit an answered probe allows; {@code false} if there is none. */
    synchronized boolean takeGrant() {
        if (!granted || spent) {
            return false;
        }
        spent = true;
        return true;
    }
}
