package io.stagecoach.core.coap;

import io.stagecoach.elements.EndpointContext;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A CoAP message (RFC 7252 §3): immutable; one of {@link Request}, {@link Response} or
 * {@link EmptyMessage}, told apart by the code class (§4.1, §5.8, §5.9).
 *
 * <p>Three kinds of fields:
 * <ul>
 *   <li><b>Wire data</b>, part of {@link #equals(Object)}: {@link #code()}, {@link #token()},
 *       {@link #options()}, {@link #payload()}, plus type and MID below.
 *   <li><b>Filled by the stack</b> when the application leaves them unset: {@link #type()}
 *       ({@code null} = not set yet) and {@link #mid()} ({@code -1} = not set yet). The
 *       endpoint's message layer picks them with {@link #withType(Type)} / {@link #withMid(int)};
 *       the serializer refuses a message where either is still unset.
 *   <li><b>Metadata</b>, never on the wire and not part of {@code equals}: the peer
 *       {@link EndpointContext} (destination of an outgoing message, source of a received one)
 *       and {@link #receiveNanos()}, the {@code Clock} reading when it was received.
 * </ul>
 *
 * <p>The {@code with*} methods make cheap copies that share the option and payload arrays.
 */
public abstract class Message {

    private static final byte[] NO_PAYLOAD = new byte[0];

    private static final Type[] TYPES = Type.values();

    // Type, MID and token length packed in one int, and the token's bytes in a long, so that a
    // message holds its token without a Token object (24 B per parsed message) and stays at 48 B:
    // bits 0..16 MID + 1 (0: unset), 17..20 token length, 21..23 type ordinal + 1 (0: unset).
    private final int header;
    private final long tokenBits;
    private final Code code;
    private final OptionSet options;
    private final byte[] payload;
    private final EndpointContext peer;
    private final long receiveNanos;

    Message(Type type, int mid, Token token, Code code, OptionSet options, byte[] payload,
            EndpointContext peer, long receiveNanos) {
        this(type, mid, Objects.requireNonNull(token, "token").bits(), token.length(), code, options, payload, peer,
                receiveNanos);
    }

    Message(Type type, int mid, long tokenBits, int tokenLength, Code code, OptionSet options, byte[] payload,
            EndpointContext peer, long receiveNanos) {
        if (mid < -1 || mid > 0xFFFF) {
            throw new IllegalArgumentException("MID must be 0..65535 or -1 (unset), got " + mid);
        }
        if (tokenLength < 0 || tokenLength > Token.MAX_LENGTH) {
            throw new IllegalArgumentException("token length must be 0..8 bytes, got " + tokenLength);
        }
        this.header = (mid + 1) | tokenLength << 17 | (type == null ? 0 : type.ordinal() + 1) << 21;
        this.tokenBits = tokenBits;
        this.code = Objects.requireNonNull(code, "code");
        this.options = Objects.requireNonNull(options, "options");
        this.payload = Objects.requireNonNull(payload, "payload");
        this.peer = peer;
        this.receiveNanos = receiveNanos;
    }

    /** The message type, or {@code null} until the stack sets it. */
    public final Type type() {
        int t = header >>> 21;
        return t == 0 ? null : TYPES[t - 1];
    }

    /** The message ID 0..65535, or -1 until the stack sets it. */
    public final int mid() {
        return (header & 0x1FFFF) - 1;
    }

    /** The token; a new (equal) object on each call for a non-empty one, so prefer {@link #tokenLength()} and {@link #copyTokenTo} in a loop. */
    public final Token token() {
        return Token.of(tokenBits, tokenLength());
    }

    /** Length of the token, 0..8 bytes. */
    public final int tokenLength() {
        return (header >>> 17) & 0xF;
    }

    /** Copies the token's bytes into {@code dst} at {@code off}; for encoders. */
    public final void copyTokenTo(byte[] dst, int off) {
        Token.copyTo(tokenBits, tokenLength(), dst, off);
    }

    /** Whether this message's token equals {@code other}'s, without making either token. */
    public final boolean sameToken(Message other) {
        return tokenBits == other.tokenBits && tokenLength() == other.tokenLength();
    }

    /** The token's bytes in the low bytes of a long, for the subclasses' copies. */
    final long tokenBits() {
        return tokenBits;
    }

    public final Code code() {
        return code;
    }

    public final OptionSet options() {
        return options;
    }

    /** A copy of the payload; empty when there is none. */
    public final byte[] payload() {
        return payload.clone();
    }

    public final int payloadLength() {
        return payload.length;
    }

    /** Copies the payload into {@code dst} at {@code off}; for encoders. */
    public final void copyPayloadTo(byte[] dst, int off) {
        System.arraycopy(payload, 0, dst, off, payload.length);
    }

    /** The payload decoded as UTF-8. */
    public final String payloadString() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /** Peer of this message (metadata), or {@code null}. */
    public final EndpointContext peer() {
        return peer;
    }

    /** Clock reading when received (metadata); 0 for a message built locally. */
    public final long receiveNanos() {
        return receiveNanos;
    }

    /** Whether the type is CON. */
    public final boolean isConfirmable() {
        return type() == Type.CON;
    }

    /** Shared payload array, never exposed outside the package. */
    final byte[] payloadArray() {
        return payload;
    }

    /** A copy with another MID (0..65535, or -1 to unset). */
    public abstract Message withMid(int mid);

    /** A copy with another type. */
    public abstract Message withType(Type type);

    /**
     * A copy with another type and MID (0..65535, or -1 to unset): {@code withType(type).withMid(mid)}
     * in one copy, as the message layer piggybacks a response in its ACK (saves one copy per response).
     */
    public abstract Message withTypeAndMid(Type type, int mid);

    /** A copy with another peer (metadata). */
    public abstract Message withPeer(EndpointContext peer);

    /** A copy with another token. */
    public abstract Message withToken(Token token);

    /** Equal when of the same kind with the same wire data; metadata is ignored. */
    @Override
    public final boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        Message m = (Message) o;
        return header == m.header && tokenBits == m.tokenBits && code == m.code
                && options.equals(m.options) && Arrays.equals(payload, m.payload);
    }

    @Override
    public final int hashCode() {
        return ((mid() * 31 + code.value()) * 31 + Token.hash(tokenBits, tokenLength())) * 31 + options.hashCode();
    }

    /** E.g. {@code CON-0.01 GET mid=4660 token=0102 [Uri-Path="x"] payload=0B}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        Type type = type();
        int mid = mid();
        sb.append(type == null ? "?" : type).append(' ').append(code)
                .append(" mid=").append(mid < 0 ? "?" : Integer.toString(mid))
                .append(" token=").append(token());
        if (!options.isEmpty()) {
            sb.append(' ').append(options);
        }
        if (payload.length > 0) {
            sb.append(" payload=").append(payload.length).append('B');
        }
        if (peer != null) {
            sb.append(" peer=").append(peer);
        }
        return sb.toString();
    }

    /**
     * The fields every builder has.
     *
     * @param <B> the concrete builder, returned by the setters
     */
    public abstract static class Builder<B extends Builder<B>> {
        Type type;
        int mid = -1;
        long tokenBits;
        int tokenLength;
        OptionSet options = OptionSet.EMPTY;
        OptionSet.Builder optionsBuilder;
        byte[] payload = NO_PAYLOAD;
        EndpointContext peer;
        long receiveNanos;

        Builder() {
        }

        Builder(Message m) {
            type = m.type();
            mid = m.mid();
            tokenBits = m.tokenBits;
            tokenLength = m.tokenLength();
            options = m.options;
            payload = m.payload;
            peer = m.peer;
            receiveNanos = m.receiveNanos;
        }

        @SuppressWarnings("unchecked")
        final B self() {
            return (B) this;
        }

        /** Message type; leave unset to let the stack choose. */
        public B type(Type type) {
            this.type = type;
            return self();
        }

        /** Message ID 0..65535, or -1 to let the stack choose. */
        public B mid(int mid) {
            if (mid < -1 || mid > 0xFFFF) {
                throw new IllegalArgumentException("MID must be 0..65535 or -1 (unset), got " + mid);
            }
            this.mid = mid;
            return self();
        }

        public B token(Token token) {
            this.tokenBits = Objects.requireNonNull(token, "token").bits();
            this.tokenLength = token.length();
            return self();
        }

        /** The token of {@code message}, e.g. of the request answered (RFC 7252 §5.3.2), without a {@link Token} object. */
        public B tokenOf(Message message) {
            this.tokenBits = message.tokenBits;
            this.tokenLength = message.tokenLength();
            return self();
        }

        /** Token of {@code len} (0..8) bytes of {@code src} from {@code off}, copied; for decoders. */
        public B token(byte[] src, int off, int len) {
            if (len < 0 || len > Token.MAX_LENGTH) {
                throw new IllegalArgumentException("token length must be 0..8 bytes, got " + len);
            }
            Objects.checkFromIndexSize(off, len, src.length);
            this.tokenBits = Token.bits(src, off, len);
            this.tokenLength = len;
            return self();
        }

        /** Replaces all options. */
        public B options(OptionSet options) {
            this.options = Objects.requireNonNull(options, "options");
            this.optionsBuilder = null;
            return self();
        }

        /**
         * Edits the options in place and returns this builder, to keep a chain going:
         * {@code Request.get().uri(u).options(o -> o.ifNoneMatch()).build()}.
         */
        public B options(Consumer<OptionSet.Builder> edit) {
            edit.accept(options());
            return self();
        }

        /** Sets Content-Format (RFC 7252 §5.10.3); {@code null} removes it. */
        public B contentFormat(ContentFormat format) {
            if (format == null) {
                options().remove(OptionNumber.CONTENT_FORMAT);
            } else {
                options().contentFormat(format.number());
            }
            return self();
        }

        /** The options being built, to set single options: {@code b.options().uriPath("a")}. */
        public OptionSet.Builder options() {
            if (optionsBuilder == null) {
                optionsBuilder = options.newBuilder();
            }
            return optionsBuilder;
        }

        /** Sets a copy of {@code payload}. */
        public B payload(byte[] payload) {
            this.payload = payload.clone();
            return self();
        }

        /** Sets a copy of {@code len} bytes of {@code src} from {@code off}. */
        public B payload(byte[] src, int off, int len) {
            // no new empty array per payload-less message (16 B); copyOfRange checks the range
            boolean empty = len == 0 && off >= 0 && off <= src.length;
            this.payload = empty ? NO_PAYLOAD : Arrays.copyOfRange(src, off, off + len);
            return self();
        }

        /**
         * Sets a copy of {@code len} bytes of {@code source}'s payload from {@code off}, without
         * copying the rest of it: one block of a large representation (RFC 7959 §2.4) costs the
         * block, not the whole body.
         *
         * @throws IndexOutOfBoundsException when the range is not inside that payload
         */
        public B payload(Message source, int off, int len) {
            byte[] src = source.payload;
            Objects.checkFromIndexSize(off, len, src.length);
            this.payload = len == 0 ? NO_PAYLOAD : Arrays.copyOfRange(src, off, off + len);
            return self();
        }

        /** Sets {@code payload}, shared without a copy: it is immutable. */
        public B payload(Payload payload) {
            this.payload = payload.length() == 0 ? NO_PAYLOAD : payload.array();
            return self();
        }

        /** Sets the payload to {@code text} in UTF-8. */
        public B payload(String text) {
            this.payload = text.getBytes(StandardCharsets.UTF_8);
            return self();
        }

        /** Peer (metadata): destination when sending. */
        public B peer(EndpointContext peer) {
            this.peer = peer;
            return self();
        }

        /** Receive time (metadata), set by the parser. */
        public B receiveNanos(long receiveNanos) {
            this.receiveNanos = receiveNanos;
            return self();
        }

        final OptionSet builtOptions() {
            return optionsBuilder == null ? options : optionsBuilder.build();
        }
    }
}
