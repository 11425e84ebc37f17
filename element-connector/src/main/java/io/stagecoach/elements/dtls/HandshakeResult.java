package io.stagecoach.elements.dtls;

import java.security.Principal;
import org.bouncycastle.tls.SecurityParameters;
import org.bouncycastle.tls.TlsSession;

/**
 * What a finished handshake established, read from BouncyCastle's connection parameters.
 *
 * @param principal    the authenticated peer, {@code null} for a server that did not ask a
 *                     certificate client
 * @param sessionId    the session ID, empty if none
 * @param inboundCid   the connection ID the peer puts in the records it sends us; {@code null} if none
 * @param cipherSuite  the IANA code of the negotiated suite
 * @param resumed      whether this was an abbreviated handshake
 * @param session      the resumable BC session, or {@code null}
 * @param protection   the record protection of the new epoch, from {@link DtlsCrypto}
 */
record HandshakeResult(Principal principal, byte[] sessionId, byte[] inboundCid, int cipherSuite,
        boolean resumed, TlsSession session, RecordProtection protection) {

    /** Reads the parameters and takes the record protection this thread's handshake created. */
    static HandshakeResult of(Principal principal, SecurityParameters p, TlsSession session) {
        byte[] inbound = p.getConnectionIDPeer();
        return new HandshakeResult(principal, p.getSessionID() == null ? new byte[0] : p.getSessionID(),
                inbound == null || inbound.length == 0 ? null : inbound, p.getCipherSuite(), p.isResumedSession(),
                session != null && session.isResumable() ? session : null, DtlsCrypto.takeProtection());
    }
}
