package io.stagecoach.core.coap;

import io.stagecoach.elements.EndpointContext;

/**
 * A CoAP request (RFC 7252 §5.8): a method code (class 0, detail 1..31), e.g. GET 0.01.
 * Methods this version does not name (0.08..0.31) are accepted and kept.
 *
 * <pre>{@code
 * Request r = Request.get().uri("coap://[::1]/sensors/temp").type(Type.CON).build();
 * }</pre>
 */
public final class Request extends Message {

    private Request(Builder b, OptionSet options) {
        super(b.type, b.mid, b.tokenBits, b.tokenLength, b.code, options, b.payload, b.peer, b.receiveNanos);
    }

    private Request(Request m, Type type, int mid, long tokenBits, int tokenLength, EndpointContext peer) {
        super(type, mid, tokenBits, tokenLength, m.code(), m.options(), m.payloadArray(), peer, m.receiveNanos());
    }

    /** A builder for a request with {@code method}; IllegalArgumentException if not a method. */
    public static Builder builder(Code method) {
        return new Builder(method);
    }

    public static Builder get() {
        return new Builder(Code.GET);
    }

    public static Builder post() {
        return new Builder(Code.POST);
    }

    public static Builder put() {
        return new Builder(Code.PUT);
    }

    public static Builder delete() {
        return new Builder(Code.DELETE);
    }

    public static Builder fetch() {
        return new Builder(Code.FETCH);
    }

    /** A builder holding this request's fields. */
    public Builder newBuilder() {
        return new Builder(this);
    }

    /** The method, same as {@link #code()}. */
    public Code method() {
        return code();
    }

    /**
     * The request URI composed from Uri-* options and the peer (RFC 7252 §6.5).
     *
     * @throws IllegalStateException if neither Uri-Host nor a peer gives the host
     */
    public String uri(boolean secure) {
        return CoapUri.fromOptions(options(), peer() == null ? null : peer().peer(), secure).toString();
    }

    @Override
    public Request withMid(int mid) {
        return new Request(this, type(), mid, tokenBits(), tokenLength(), peer());
    }

    @Override
    public Request withType(Type type) {
        return new Request(this, type, mid(), tokenBits(), tokenLength(), peer());
    }

    @Override
    public Request withTypeAndMid(Type type, int mid) {
        return new Request(this, type, mid, tokenBits(), tokenLength(), peer());
    }

    @Override
    public Request withPeer(EndpointContext peer) {
        return new Request(this, type(), mid(), tokenBits(), tokenLength(), peer);
    }

    @Override
    public Request withToken(Token token) {
        return new Request(this, type(), mid(), token.bits(), token.length(), peer());
    }

    /** Builds a {@link Request}. */
    public static final class Builder extends Message.Builder<Builder> {
        private Code code;

        Builder(Code method) {
            code(method);
        }

        Builder(Request r) {
            super(r);
            code = r.code();
        }

        /** The method; IllegalArgumentException unless class 0 and detail 1..31. */
        public Builder code(Code method) {
            if (!method.isRequest()) {
                throw new IllegalArgumentException("a request needs a method code 0.01..0.31, got " + method);
            }
            this.code = method;
            return this;
        }

        /**
         * Sets Uri-Host (for a host name only), Uri-Path and Uri-Query from {@code uri}
         * (RFC 7252 §6.4), and the peer to the URI's address when the host is an IP literal.
         *
         * @throws IllegalArgumentException naming the URI if it is not an absolute coap/coaps URI
         */
        public Builder uri(String uri) {
            return uri(CoapUri.parse(uri));
        }

        /** As {@link #uri(String)}. */
        public Builder uri(CoapUri uri) {
            uri.applyTo(options());
            if (uri.isIpLiteral()) {
                peer(EndpointContext.of(uri.destination()));
            }
            return this;
        }

        /** Sets Accept (RFC 7252 §5.10.4). */
        public Builder accept(ContentFormat format) {
            options().accept(format.number());
            return this;
        }

        /** Sets Observe (RFC 7641 §2): 0 registers, 1 deregisters. */
        public Builder observe(int value) {
            options().observe(value);
            return this;
        }

        public Request build() {
            return new Request(this, builtOptions());
        }
    }
}
