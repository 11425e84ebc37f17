package io.stagecoach.elements.dtls;

/**
 * A datagram that is not a well-formed DTLS 1.2 record (or handshake fragment). The only
 * exception {@link RecordHeader#parse} and {@link HandshakeFragment#parse} throw; without a
 * stack trace, because a hostile peer can make us throw it at line rate.
 */
final class MalformedRecordException extends Exception {

    private static final long serialVersionUID = 1L;

    public MalformedRecordException(String message) {
        super(message, null, false, false);
    }
}
