package io.stagecoach.core.coap;

/**
 * The message type (RFC 7252 §3, §4): the 2-bit T field. The field is closed, all four values are
 * defined, so an enum is exact.
 */
public enum Type {
    /** Confirmable: retransmitted until acknowledged or reset. */
    CON,
    /** Non-confirmable. */
    NON,
    /** Acknowledgement of a CON, echoing its MID. */
    ACK,
    /** Reset: the recipient cannot process the message identified by the MID. */
    RST;

    private static final Type[] VALUES = values();

    /** The type for the 2-bit wire value {@code 0..3}. */
    public static Type valueOf(int wire) {
        if (wire < 0 || wire > 3) {
            throw new IllegalArgumentException("message type must be 0..3, got " + wire);
        }
        return VALUES[wire];
    }

    /** The 2-bit wire value. */
    public int wire() {
        return ordinal();
    }
}
