package io.stagecoach.elements.dtls;

import io.stagecoach.elements.PeerPrincipal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import org.bouncycastle.tls.AbstractTlsClient;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.AlertLevel;
import org.bouncycastle.tls.BasicTlsPSKIdentity;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.CertificateType;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SecurityParameters;
import org.bouncycastle.tls.TlsAuthentication;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsPSKIdentity;
import org.bouncycastle.tls.TlsServerCertificate;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * BouncyCastle's view of our client for one handshake. It offers a zero-length connection ID
 * when connection IDs are on: the server then puts the ID it chose in our records (so the session
 * survives our address changing), while we keep finding the server by its address.
 */
final class ClientPeer extends AbstractTlsClient {

    private static final Logger LOG = LoggerFactory.getLogger(ClientPeer.class);

    private final DtlsConnectorConfig config;
    private final BcCredentials credentials;
    private final InetSocketAddress peer;
    private final TlsSession resume;
    private final long deadlineNanos;
    private volatile Principal principal;
    private volatile HandshakeResult result;

    public ClientPeer(BcTlsCrypto crypto, DtlsConnectorConfig config, BcCredentials credentials,
            InetSocketAddress peer, TlsSession resume, long deadlineNanos) {
        super(crypto);
        this.config = config;
        this.credentials = credentials;
        this.peer = peer;
        this.resume = resume;
        this.deadlineNanos = deadlineNanos;
    }

    public HandshakeResult result() {
        return result;
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
    public int getHandshakeTimeoutMillis() {
        return (int) Math.min(Integer.MAX_VALUE, config.handshakeTimeout().toMillis());
    }

    @Override
    public int getHandshakeResendTimeMillis() {
        return (int) config.retransmissionTimeout().toMillis();
    }

    @Override
    protected byte[] getNewConnectionID() {
        return config.cidLength() > 0 ? new byte[0] : null;
    }

    @Override
    public TlsSession getSessionToResume() {
        return resume;
    }

    @Override
    protected short[] getAllowedServerCertificateTypes() {
        return new short[] {CertificateType.RawPublicKey, CertificateType.X509};
    }

    @Override
    protected short[] getAllowedClientCertificateTypes() {
        if (credentials == null) {
            return null;
        }
        return new short[] {credentials.isRawPublicKey() ? CertificateType.RawPublicKey : CertificateType.X509};
    }

    @Override
    public TlsPSKIdentity getPSKIdentity() {
        PskCredentials psk = config.pskCredentials();
        if (psk == null) {
            return null;
        }
        principal = PeerPrincipal.psk(psk.identity());
        return new BasicTlsPSKIdentity(psk.identity().getBytes(StandardCharsets.UTF_8), psk.secret());
    }

    @Override
    public TlsAuthentication getAuthentication() {
        return new TlsAuthentication() {
            @Override
            public void notifyServerCertificate(TlsServerCertificate serverCertificate) throws IOException {
                if (config.certificateVerifier() == null) {
                    throw new TlsFatalAlert(AlertDescription.bad_certificate, "no certificate verifier");
                }
                long left = Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
                PeerSupport.verify(config.certificateVerifier(), serverCertificate.getCertificate(), peer, left);
                principal = BcCredentials.principalOf(serverCertificate.getCertificate());
            }

            @Override
            public TlsCredentials getClientCredentials(CertificateRequest request) {
                if (credentials == null) {
                    return null;
                }
                return credentials.signer(context, request.getSupportedSignatureAlgorithms());
            }
        };
    }

    @Override
    public void notifyHandshakeComplete() throws IOException {
        super.notifyHandshakeComplete();
        SecurityParameters p = context.getSecurityParametersConnection();
        Principal who = principal;
        if (p.isResumedSession() && p.getPeerCertificate() != null && !p.getPeerCertificate().isEmpty()) {
            who = BcCredentials.principalOf(p.getPeerCertificate());
        }
        result = HandshakeResult.of(who, p, context.getSession());
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
