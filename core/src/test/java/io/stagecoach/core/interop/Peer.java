package io.stagecoach.core.interop;

/**
 * A third-party CoAP implementation that interop tests run as a separate process on loopback.
 * Each constant knows its executable's name, where {@link InteropPeers} looks for it, and the
 * exact install step a developer is told when it is missing (docs/interop.md).
 */
public enum Peer {
    LIBCOAP_CLIENT("coap-client-notls", Source.PATH, Install.LIBCOAP),
    LIBCOAP_SERVER("coap-server-notls", Source.PATH, Install.LIBCOAP),
    /** libcoap with OpenSSL: coaps (DTLS: PSK, X.509) and coaps+tcp (RFC 8323). */
    LIBCOAP_CLIENT_OPENSSL("coap-client-openssl", Source.PATH, Install.LIBCOAP),
    LIBCOAP_SERVER_OPENSSL("coap-server-openssl", Source.PATH, Install.LIBCOAP),
    /** libcoap with GnuTLS: coaps (DTLS: PSK, X.509, raw public keys). */
    LIBCOAP_CLIENT_GNUTLS("coap-client-gnutls", Source.PATH, Install.LIBCOAP),
    LIBCOAP_SERVER_GNUTLS("coap-server-gnutls", Source.PATH, Install.LIBCOAP),
    AIOCOAP_CLIENT("aiocoap-client", Source.AIOCOAP_BIN, Install.AIOCOAP),
    AIOCOAP_FILESERVER("aiocoap-fileserver", Source.AIOCOAP_BIN, Install.AIOCOAP),
    /** A browser: the explorer page's JavaScript CoAP-over-WebSockets client runs in it. */
    CHROMIUM("chromium", Source.PATH, Install.CHROMIUM),
    /** Drives {@link #CHROMIUM} through the W3C WebDriver protocol. */
    CHROMEDRIVER("chromedriver", Source.PATH, Install.CHROMIUM);

    /** Where a peer's executable is searched. */
    enum Source {
        /** On the PATH: Debian's libcoap3-bin (libcoap 4.3.1), chromium, chromium-driver. */
        PATH,
        /** aiocoap 0.4.17 from PyPI, in {@code $STAGECOACH_AIOCOAP_BIN} or {@code <repo>/.venv-interop/bin}. */
        AIOCOAP_BIN
    }

    /** The install steps, one per package that brings peers. */
    private static final class Install {
        static final String LIBCOAP =
                "apt-get install libcoap3-bin (libcoap 4.3.1, puts coap-client-notls and coap-server-notls on the PATH)";
        static final String AIOCOAP =
                "python3 -m venv .venv-interop && .venv-interop/bin/pip install aiocoap==0.4.17 "
                        + "websockets==15.0.1 in the repository root, or set STAGECOACH_AIOCOAP_BIN to a directory holding"
                        + " aiocoap-client";
        static final String CHROMIUM =
                "apt-get install chromium chromium-driver (Debian's packages put chromium and chromedriver on the PATH)";
    }

    private final String executable;
    private final Source source;
    private final String installHint;

    Peer(String executable, Source source, String installHint) {
        this.executable = executable;
        this.source = source;
        this.installHint = installHint;
    }

    /** The executable's file name, e.g. {@code coap-client-notls}. */
    public String executable() {
        return executable;
    }

    Source source() {
        return source;
    }

    /** The install step that makes this peer available; .ci/install-interop-peers does them all. */
    public String installHint() {
        return installHint;
    }
}
