package io.stagecoach.core.coap;

import io.stagecoach.elements.EndpointContext;

/**
 * An Empty message (RFC 7252 §4.1): code 0.00, no token, no options, no payload. Used as a bare
 * ACK, as RST, and as a CoAP ping (an Empty CON, §4.3).
 */
public final class EmptyMessage extends Message {

    private static final byte[] NO_PAYLOAD = new byte[0];

    private EmptyMessage(Type type, int mid, EndpointContext peer, long receiveNanos) {
        super(type, mid, Token.EMPTY, Code.EMPTY, OptionSet.EMPTY, NO_PAYLOAD, peer, receiveNanos);
    }

    /** An Empty message of {@code type} with {@code mid} (-1: set by the stack). */
    public static EmptyMessage of(Type type, int mid) {
        return new EmptyMessage(type, mid, null, 0);
    }

    /** As {@link #of(Type, int)} with the metadata a parser knows. */
    public static EmptyMessage received(Type type, int mid, EndpointContext peer, long receiveNanos) {
        return new EmptyMessage(type, mid, peer, receiveNanos);
    }

    /** The ACK for {@code message}: same MID, same peer (RFC 7252 §4.2). */
    public static EmptyMessage ackFor(Message message) {
        return new EmptyMessage(Type.ACK, message.mid(), message.peer(), 0);
    }

    /** The RST rejecting {@code message}: same MID, same peer (RFC 7252 §4.2, §4.3). */
    public static EmptyMessage rstFor(Message message) {
        return new EmptyMessage(Type.RST, message.mid(), message.peer(), 0);
    }

    /** A CoAP ping: Empty CON (RFC 7252 §4.3). */
    public static EmptyMessage ping(int mid) {
        return new EmptyMessage(Type.CON, mid, null, 0);
    }

    @Override
    public EmptyMessage withMid(int mid) {
        return new EmptyMessage(type(), mid, peer(), receiveNanos());
    }

    @Override
    public EmptyMessage withType(Type type) {
        return new EmptyMessage(type, mid(), peer(), receiveNanos());
    }

    @Override
    public EmptyMessage withTypeAndMid(Type type, int mid) {
        return new EmptyMessage(type, mid, peer(), receiveNanos());
    }

    @Override
    public EmptyMessage withPeer(EndpointContext peer) {
        return new EmptyMessage(type(), mid(), peer, receiveNanos());
    }

    /** Only {@link Token#EMPTY} is allowed (RFC 7252 §4.1). */
    @Override
    public EmptyMessage withToken(Token token) {
        if (!token.isEmpty()) {
            throw new IllegalArgumentException("an Empty message has no token (RFC 7252 4.1)");
        }
        return this;
    }
}
