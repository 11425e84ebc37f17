package io.stagecoach.elements.dtls;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.PeerPrincipal;
import java.security.Principal;

/**
 * The attributes {@link DtlsConnector} puts on the {@link EndpointContext} of every datagram it
 * delivers. Layers above may read {@link #PRINCIPAL}; the others are for logs and tests. When
 * sending, only the peer address of the context matters: the connector finds the session by it.
 */
public final class DtlsContextKeys {

    private DtlsContextKeys() {
    }

    /**
     * The authenticated peer, a {@link PeerPrincipal}: the same key as
     * {@link PeerPrincipal#CONTEXT_KEY}, listed here beside the other DTLS attributes.
     */
    public static final EndpointContext.Key<Principal> PRINCIPAL = PeerPrincipal.CONTEXT_KEY;

    /** The DTLS session ID, lower-case hex; empty when the server issued none. */
    public static final EndpointContext.Key<String> SESSION_ID =
            new EndpointContext.Key<>("dtls.session-id", String.class);

    /**
     * The connection ID this side receives in the peer's records (RFC 9146), lower-case hex;
     * absent when the session uses none.
     */
    public static final EndpointContext.Key<String> CONNECTION_ID =
            new EndpointContext.Key<>("dtls.connection-id", String.class);

    /** The IANA name of the negotiated cipher suite, e.g. {@code TLS_PSK_WITH_AES_128_CCM_8}. */
    public static final EndpointContext.Key<String> CIPHER_SUITE =
            new EndpointContext.Key<>("dtls.cipher-suite", String.class);
}
