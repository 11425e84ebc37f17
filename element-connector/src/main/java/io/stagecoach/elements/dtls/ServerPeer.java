package io.stagecoach.elements.dtls;

import io.stagecoach.elements.PeerPrincipal;
import io.stagecoach.elements.SafeText;
import io.stagecoach.elements.dtls.DtlsConnectorConfig.ClientAuth;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.HexFormat;
import java.util.Vector;
import java.util.function.Predicate;
import org.bouncycastle.tls.AbstractTlsServer;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.AlertLevel;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.CertificateType;
import org.bouncycastle.tls.ClientCertificateType;
import org.bouncycastle.tls.KeyExchangeAlgorithm;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SecurityParameters;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsPSKIdentityManager;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * BouncyCastle's view of our server for one handshake: cipher suites, credentials, PSK lookup,
 * client certificate check, connection ID, session cache. Its callbacks run on the handshake
 * thread.
 */
final class ServerPeer extends AbstractTlsServer {

    private static final Logger LOG = LoggerFactory.getLogger(ServerPeer.class);

    /** Answers BC's synchronous PSK callback; see {@code DtlsConnector} for the asynchronous part. */
    @FunctionalInterface
    public interface PskResolver {
        /** @return the secret, or {@code null} for an unknown identity */
        byte[] secret(byte[] identity) throws IOException;
    }

    private final DtlsConnectorConfig config;
    private final BcCredentials credentials;
    private final CidGenerator cids;
    private final Predicate<CidKey> cidInUse;
    private final BoundedCache<String, TlsSession> resumption;
    private final PskResolver psk;
    private final InetSocketAddress peer;
    private final long deadlineNanos;
    private volatile int selected = -1;
    private volatile Principal principal;
    private volatile HandshakeResult result;

    public ServerPeer(BcTlsCrypto crypto, DtlsConnectorConfig config, BcCredentials credentials, CidGenerator cids,
            Predicate<CidKey> cidInUse, BoundedCache<String, TlsSession> resumption, PskResolver psk,
            InetSocketAddress peer, long deadlineNanos) {
        super(crypto);
        this.config = config;
        this.credentials = credentials;
        this.cids = cids;
        this.cidInUse = cidInUse;
        this.resumption = resumption;
        this.psk = psk;
        this.peer = peer;
        this.deadlineNanos = deadlineNanos;
    }

    /** The suite chosen for this handshake once the ServerHello was built, else {@code null}. */
    public DtlsCipherSuite selectedSuite() {
        return DtlsCipherSuite.forCode(selected);
    }

    /** Set once the handshake completed. */
    public HandshakeResult result() {
        return result;
    }

    private long millisLeft() {
        return Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
    }

    @Override
    protected ProtocolVersion[] getSupportedVersions() {
        return ProtocolVersion.DTLSv12.only();
    }

    @Override
    protected int[] getSupportedCipherSuites() {
        return TlsUtils.getSupportedCipherSuites(getCrypto(), PeerSupport.codes(config.cipherSuites()));
    }

    @Override
    protected boolean preferLocalCipherSuites() {
        return true;
    }

    @Override
    public int getSelectedCipherSuite() throws IOException {
        int suite = super.getSelectedCipherSuite();
        selected = suite;
        return suite;
    }

    @Override
    public int getHandshakeTimeoutMillis() {
        return (int) Math.min(Integer.MAX_VALUE, config.handshakeTimeout().toMillis());
    }

    @Override
    public int getHandshakeResendTimeMillis() {
        return (int) config.retransmissionTimeout().toMillis();
    }

    @Override
    protected byte[] getNewConnectionID() {
        if (!cids.enabled()) {
            return null;
        }
        for (int i = 0; i < 16; i++) {
            byte[] cid = cids.next();
            if (!cidInUse.test(CidKey.of(cid))) {
                return cid;
            }
        }
        return null; // ID space crowded: go without a connection ID rather than collide
    }

    @Override
    public byte[] getNewSessionID() {
        if (config.resumptionCacheSize() == 0) {
            return null;
        }
        byte[] id = new byte[32];
        context.getCrypto().getSecureRandom().nextBytes(id);
        return id;
    }

    @Override
    public TlsSession getSessionToResume(byte[] sessionID) {
        if (sessionID == null || sessionID.length == 0) {
            return null;
        }
        TlsSession session = resumption.get(HexFormat.of().formatHex(sessionID));
        return session != null && session.isResumable() ? session : null;
    }

    @Override
    protected short[] getAllowedClientCertificateTypes() {
        return new short[] {CertificateType.RawPublicKey, CertificateType.X509};
    }

    @Override
    public TlsCredentials getCredentials() throws IOException {
        int kx = context.getSecurityParametersHandshake().getKeyExchangeAlgorithm();
        switch (kx) {
            case KeyExchangeAlgorithm.PSK:
            case KeyExchangeAlgorithm.ECDHE_PSK:
                return null;
            case KeyExchangeAlgorithm.ECDHE_ECDSA:
                if (credentials == null) {
                    throw new TlsFatalAlert(AlertDescription.internal_error);
                }
                TlsCredentials signer = credentials.signer(context,
                        context.getSecurityParametersHandshake().getClientSigAlgs());
                if (signer == null) {
                    throw new TlsFatalAlert(AlertDescription.handshake_failure, "no common ECDSA signature algorithm");
                }
                return signer;
            default:
                throw new TlsFatalAlert(AlertDescription.internal_error);
        }
    }

    @Override
    public TlsPSKIdentityManager getPSKIdentityManager() {
        return new TlsPSKIdentityManager() {
            @Override
            public byte[] getHint() {
                return null;
            }

            @Override
            public byte[] getPSK(byte[] identity) {
                try {
                    byte[] secret = psk.secret(identity);
                    if (secret != null) {
                        principal = PeerPrincipal.psk(new String(identity, StandardCharsets.UTF_8));
                    }
                    return secret;
                } catch (IOException e) {
                    LOG.debug("PSK lookup for {} failed: {}", peer, SafeText.forLog(e.toString()));
                    return null;
                }
            }
        };
    }

    @Override
    public CertificateRequest getCertificateRequest() {
        if (config.clientAuth() == ClientAuth.NONE) {
            return null;
        }
        int kx = context.getSecurityParametersHandshake().getKeyExchangeAlgorithm();
        if (kx != KeyExchangeAlgorithm.ECDHE_ECDSA) {
            return null;
        }
        Vector<?> sigAlgs = TlsUtils.getDefaultSupportedSignatureAlgorithms(context);
        return new CertificateRequest(new short[] {ClientCertificateType.ecdsa_sign}, sigAlgs, null);
    }

    @Override
    public void notifyClientCertificate(Certificate clientCertificate) throws IOException {
        if (clientCertificate == null || clientCertificate.isEmpty()) {
            if (config.clientAuth() == ClientAuth.NEEDED) {
                throw new TlsFatalAlert(AlertDescription.handshake_failure, "client certificate required");
            }
            return;
        }
        CertificateVerifier verifier = config.certificateVerifier();
        PeerSupport.verify(verifier, clientCertificate, peer, millisLeft());
        principal = BcCredentials.principalOf(clientCertificate);
    }

    @Override
    public void notifyHandshakeComplete() throws IOException {
        super.notifyHandshakeComplete();
        SecurityParameters p = context.getSecurityParametersConnection();
        Principal who = principal;
        if (who == null && p.isResumedSession()) {
            if (p.getPSKIdentity() != null) {
                who = PeerPrincipal.psk(new String(p.getPSKIdentity(), StandardCharsets.UTF_8));
            } else if (p.getPeerCertificate() != null && !p.getPeerCertificate().isEmpty()) {
                who = BcCredentials.principalOf(p.getPeerCertificate());
            }
        }
        TlsSession session = context.getSession();
        HandshakeResult r = HandshakeResult.of(who, p, session);
        if (r.session() != null && r.sessionId().length > 0) {
            resumption.put(HexFormat.of().formatHex(r.sessionId()), r.session());
        }
        result = r;
    }

    @Override
    public void notifyAlertRaised(short alertLevel, short alertDescription, String message, Throwable cause) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("to {}: {} {} {}", peer, AlertLevel.getText(alertLevel), AlertDescription.getText(alertDescription),
                    message == null ? "" : message, cause);
        }
    }

    @Override
    public void notifyAlertReceived(short alertLevel, short alertDescription) {
        LOG.debug("from {}: {} {}", peer, AlertLevel.getText(alertLevel), AlertDescription.getText(alertDescription));
    }
}
