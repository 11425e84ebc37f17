package io.stagecoach.core.interop;

/**
 * A third-party CoAP implementation that interop tests run as a separate process on loopback.
 * Each constant knows its executable's name, where {@link InteropPeers} looks for it, and the
 * exact install step a developer is told when it is missing (docs/interop.md).
 */
public enum Peer {
    LIBCOAP_CLIENT("coap-client-notls", Source.PATH),
    LIBCOAP_SERVER("coap-server-notls", Source.PATH),
    /** libcoap with OpenSSL: (D)TLS, here coaps+tcp (RFC 8323). */
    LIBCOAP_CLIENT_OPENSSL("coap-client-openssl", Source.PATH),
    LIBCOAP_SERVER_OPENSSL("coap-server-openssl", Source.PATH),
    AIOCOAP_CLIENT("aiocoap-client", Source.AIOCOAP_BIN),
    AIOCOAP_FILESERVER("aiocoap-fileserver", Source.AIOCOAP_BIN);

    /** Where a peer's executable is searched. */
    enum Source {
        /** Debian package libcoap3-bin (libcoap 4.3.1) puts it on the PATH. */
        PATH,
        /** aiocoap 0.4.17 from PyPI, in {@code $STAGECOACH_AIOCOAP_BIN} or {@code <repo>/.venv-interop/bin}. */
        AIOCOAP_BIN
    }

    static final String LIBCOAP_INSTALL =
            "apt-get install libcoap3-bin (libcoap 4.3.1, puts coap-client-notls and coap-server-notls on the PATH)";
    static final String AIOCOAP_INSTALL =
            "python3 -m venv .venv-interop && .venv-interop/bin/pip install aiocoap==0.4.17 "
                    + "websockets==15.0.1 in the repository root, or set STAGECOACH_AIOCOAP_BIN to a directory holding"
                    + " aiocoap-client";

    private final String executable;
    private final Source source;

    Peer(String executable, Source source) {
        this.executable = executable;
        this.source = source;
    }

    /** The executable's file name, e.g. {@code coap-client-notls}. */
    public String executable() {
        return executable;
    }

    Source source() {
        return source;
    }

    /** The install step that makes this peer available; .ci/install-interop-peers does both. */
    public String installHint() {
        return source == Source.PATH ? LIBCOAP_INSTALL : AIOCOAP_INSTALL;
    }
}
