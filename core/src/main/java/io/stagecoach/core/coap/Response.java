package io.stagecoach.core.coap;

import io.stagecoach.elements.EndpointContext;

/**
 * A CoAP response (RFC 7252 §5.9): a code of class 2..5, e.g. 2.05 Content. Codes this version
 * does not name are accepted and kept.
 */
public final class Response extends Message {

    private Response(Builder b, OptionSet options) {
        super(b.type, b.mid, b.tokenBits, b.tokenLength, b.code, options, b.payload, b.peer, b.receiveNanos);
    }

    private Response(Response m, Type type, int mid, long tokenBits, int tokenLength, EndpointContext peer) {
        super(type, mid, tokenBits, tokenLength, m.code(), m.options(), m.payloadArray(), peer, m.receiveNanos());
    }

    /** A builder for a response with {@code code}; IllegalArgumentException if not class 2..5. */
    public static Builder builder(Code code) {
        return new Builder(code);
    }

    /**
     * A builder answering {@code request}: same token and peer (RFC 7252 §5.3.2); type and MID
     * are left to the stack, which piggybacks or sends separately.
     */
    public static Builder forRequest(Request request, Code code) {
        Builder b = new Builder(code).peer(request.peer());
        b.tokenBits = request.tokenBits();
        b.tokenLength = request.tokenLength();
        return b;
    }

    public Builder newBuilder() {
        return new Builder(this);
    }

    @Override
    public Response withMid(int mid) {
        return new Response(this, type(), mid, tokenBits(), tokenLength(), peer());
    }

    @Override
    public Response withType(Type type) {
        return new Response(this, type, mid(), tokenBits(), tokenLength(), peer());
    }

    @Override
    public Response withTypeAndMid(Type type, int mid) {
        if (type == type() && mid == mid()) {
            return this; // immutable: the same message (a response built as its piggybacked ACK)
        }
        return new Response(this, type, mid, tokenBits(), tokenLength(), peer());
    }

    @Override
    public Response withPeer(EndpointContext peer) {
        return new Response(this, type(), mid(), tokenBits(), tokenLength(), peer);
    }

    @Override
    public Response withToken(Token token) {
        return new Response(this, type(), mid(), token.bits(), token.length(), peer());
    }

    /** Builds a {@link Response}. */
    public static final class Builder extends Message.Builder<Builder> {
        private Code code;

        Builder(Code code) {
            code(code);
        }

        Builder(Response r) {
            super(r);
            code = r.code();
        }

        public Builder code(Code code) {
            if (!code.isResponse()) {
                throw new IllegalArgumentException("a response needs a code of class 2..5, got " + code);
            }
            this.code = code;
            return this;
        }

        public Response build() {
            return new Response(this, builtOptions());
        }
    }
}
