package io.stagecoach.core.config;

/**
 * How long a server remembers received messages for duplicate detection (RFC 7252 §4.5).
 */
public enum DeduplicationMode {

    /**
     * Remember every CON for EXCHANGE_LIFETIME (247 s) and every NON for NON_LIFETIME (145 s)
     * after receipt (RFC 7252 §4.8.2), whatever the method.
     */
    STRICT,

    /**
     * RFC 7252 §4.5 lets a server relax duplicate detection for idempotent requests: entries of
     * idempotent requests (GET, PUT, DELETE, FETCH) live only while the request is in flight and
     * are removed on completion; a later duplicate is processed again, which is harmless. Entries
     * of non-idempotent requests (POST, PATCH, iPATCH) stay for the full lifetime as in
     * {@link #STRICT}. The default.
     */
    IDEMPOTENT_RELAXED,

    /** Remember nothing: every message is new. For testing and for stateless front ends. */
    OFF
}
