package io.stagecoach.core.config;

/**
 * How the server detects and answers duplicate Confirmable and Non-confirmable requests
 * (RFC 7252 §4.5).
 */
public enum DeduplicationMode {

    /**
     * Every duplicate within EXCHANGE_LIFETIME (CON) or NON_LIFETIME (NON) is answered with the
     * stored response and never reaches the resource again.
     */
    STRICT,

    /**
     * Duplicates of non-idempotent requests (POST, PATCH, iPATCH) are answered from the store;
     * duplicates of idempotent ones (GET, FETCH, PUT, DELETE) are processed again, which RFC 7252
     * §4.5 permits, so their responses need not be kept.
     */
    IDEMPOTENT_RELAXED,

    /** No duplicate detection: every copy is processed. Only for idempotent-only servers and benchmarks. */
    OFF
}
