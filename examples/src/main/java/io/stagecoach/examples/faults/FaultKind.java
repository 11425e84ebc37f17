package io.stagecoach.examples.faults;

/** What a {@link FaultInjector} breaks, one rate each. */
public enum FaultKind {
    /** A resource handler throws; the server answers 5.00 Internal Server Error (RFC 7252 §5.9.3.1). */
    HANDLER_THROWS,
    /** A layer throws on an inbound request; the endpoint answers 5.00 and ends the exchange. */
    LAYER_THROWS,
    /** The connector's receive thread dies with an Error; the connector starts a replacement. */
    RECEIVER_DIES,
    /** The resource executor rejects the task; the server answers 5.03 with Max-Age (RFC 7252 §5.9.3.4). */
    EXECUTOR_REJECTS
}
