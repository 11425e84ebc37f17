package io.stagecoach.elements.dtls;

/**
 * The cipher suites the connector offers, by IANA name and code point. The first two are the
 * mandatory ones of RFC 7252 §9; the others are what libcoap (OpenSSL, GnuTLS) and Californium
 * commonly offer.
 */
public enum DtlsCipherSuite {
    TLS_PSK_WITH_AES_128_CCM_8(0xC0A8, true, 16),
    TLS_PSK_WITH_AES_128_CCM(0xC0A4, true, 24),
    TLS_PSK_WITH_AES_128_GCM_SHA256(0x00A8, true, 24),
    TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256(0xC037, true, 64),
    TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8(0xC0AE, false, 16),
    TLS_ECDHE_ECDSA_WITH_AES_128_CCM(0xC0AC, false, 24),
    TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256(0xC02B, false, 24);

    private final int code;
    private final boolean psk;
    private final int minCiphertext;

    DtlsCipherSuite(int code, boolean psk, int minCiphertext) {
        this.code = code;
        this.psk = psk;
        this.minCiphertext = minCiphertext;
    }

    /** The IANA code point. */
    public int code() {
        return code;
    }

    /** Whether the suite authenticates with a pre-shared key (else with an ECDSA key). */
    public boolean isPsk() {
        return psk;
    }

    /**
     * The shortest encrypted fragment any valid record of this suite has (explicit nonce or IV
     * plus tag or MAC and padding). Shorter records are dropped before BouncyCastle sees them:
     * BC 1.84 answers one with a fatal decode_error that ends the session.
     */
    public int minCiphertextLength() {
        return minCiphertext;
    }

    /** The suite with IANA code {@code code}, or {@code null}. */
    public static DtlsCipherSuite forCode(int code) {
        for (DtlsCipherSuite s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
