package io.stagecoach.core.test.lockstep;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageSerializer;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A message a {@link LockstepPeer} is about to send, built fluently and encoded with the real
 * {@link UdpMessageSerializer} on {@link #go()}:
 * <pre>{@code
 * peer.con().get().mid(0x1234).token("0a0b").path("test").to(server).go();
 * peer.ack(0x1234).response(Code.CONTENT).token("0a0b").payload("hi").to(client).go();
 * }</pre>
 *
 * <p>Deliberately lax, for negative tests: options are <em>not</em> validated (a Block2 with
 * SZX 7 via {@link #option(OptionNumber, byte[])}, a repeated non-repeatable option, an
 * over-long Uri-Host all go out as given, RFC 7252 §5.4.3), any type goes with any code (a
 * request in an ACK), and a code that is neither Empty, method nor response (reserved classes
 * 1, 6, 7, or 0.00 with a token) is written into the header of an otherwise serialized message.
 * Byte-level breakage (TKL 9, truncated options) needs {@link LockstepPeer#send(byte[], InetSocketAddress)}.
 */
public final class OutgoingMessage {

    private final LockstepPeer peer;
    private final Type type;
    private Code code = Code.EMPTY;
    private int mid = -1;
    private Token token = Token.EMPTY;
    private final List<Option> options = new ArrayList<>();
    private byte[] payload = new byte[0];
    private InetSocketAddress to;

    OutgoingMessage(LockstepPeer peer, Type type, InetSocketAddress defaultTo) {
        this.peer = peer;
        this.type = Objects.requireNonNull(type, "type");
        this.to = defaultTo;
    }

    /** Any code, including unregistered and reserved ones. */
    public OutgoingMessage code(Code code) {
        this.code = Objects.requireNonNull(code, "code");
        return this;
    }

    public OutgoingMessage get() {
        return code(Code.GET);
    }

    public OutgoingMessage post() {
        return code(Code.POST);
    }

    public OutgoingMessage put() {
        return code(Code.PUT);
    }

    public OutgoingMessage delete() {
        return code(Code.DELETE);
    }

    public OutgoingMessage fetch() {
        return code(Code.FETCH);
    }

    /** A response code such as {@link Code#CONTENT}; same as {@link #code(Code)}, reads better. */
    public OutgoingMessage response(Code responseCode) {
        return code(responseCode);
    }

    /** The message ID, 0..65535. */
    public OutgoingMessage mid(int mid) {
        if (mid < 0 || mid > 0xFFFF) {
            throw new IllegalArgumentException("MID must be 0..65535, got " + mid);
        }
        this.mid = mid;
        return this;
    }

    /** The token in hex, e.g. {@code "0a0b"}; {@code ""} for none. */
    public OutgoingMessage token(String hex) {
        return token(Token.fromHex(hex));
    }

    public OutgoingMessage token(Token token) {
        this.token = Objects.requireNonNull(token, "token");
        return this;
    }

    /** Adds an option occurrence as is, unvalidated; repeated calls add repeated options. */
    public OutgoingMessage option(OptionNumber number, byte[] value) {
        return option(Option.of(number, value));
    }

    /** Adds an option with a number that need not be registered. */
    public OutgoingMessage option(int number, byte[] value) {
        return option(Option.of(number, value));
    }

    public OutgoingMessage option(OptionNumber number, String value) {
        return option(Option.ofString(number, value));
    }

    public OutgoingMessage optionUint(OptionNumber number, long value) {
        return option(Option.ofUint(number, value));
    }

    private OutgoingMessage option(Option option) {
        // stable insertion keeps repeated options in the order added (RFC 7252 §5.4.5)
        int i = options.size();
        while (i > 0 && options.get(i - 1).number() > option.number()) {
            i--;
        }
        options.add(i, option);
        return this;
    }

    /** One Uri-Path option per {@code '/'}-separated segment; a leading slash is ignored. */
    public OutgoingMessage path(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        for (String segment : p.split("/", -1)) {
            option(OptionNumber.URI_PATH, segment);
        }
        return this;
    }

    /** Adds one Uri-Query argument, e.g. {@code "rt=temp"}. */
    public OutgoingMessage query(String argument) {
        return option(OptionNumber.URI_QUERY, argument);
    }

    public OutgoingMessage uriHost(String host) {
        return option(OptionNumber.URI_HOST, host);
    }

    public OutgoingMessage observe(int value) {
        return optionUint(OptionNumber.OBSERVE, value);
    }

    public OutgoingMessage contentFormat(int format) {
        return optionUint(OptionNumber.CONTENT_FORMAT, format);
    }

    public OutgoingMessage contentFormat(ContentFormat format) {
        return contentFormat(format.number());
    }

    public OutgoingMessage accept(int format) {
        return optionUint(OptionNumber.ACCEPT, format);
    }

    public OutgoingMessage accept(ContentFormat format) {
        return accept(format.number());
    }

    public OutgoingMessage etag(String hex) {
        return option(OptionNumber.ETAG, Token.fromHex(hex).bytes());
    }

    public OutgoingMessage maxAge(long seconds) {
        return optionUint(OptionNumber.MAX_AGE, seconds);
    }

    /** Block1 (RFC 7959 §2.2); SZX 7 is refused here, send it with {@link #option(OptionNumber, byte[])}. */
    public OutgoingMessage block1(int num, boolean more, int szx) {
        return option(OptionNumber.BLOCK1, BlockOption.of(num, more, szx).encode());
    }

    /** Block2 (RFC 7959 §2.2); SZX 7 is refused here, send it with {@link #option(OptionNumber, byte[])}. */
    public OutgoingMessage block2(int num, boolean more, int szx) {
        return option(OptionNumber.BLOCK2, BlockOption.of(num, more, szx).encode());
    }

    public OutgoingMessage size1(long size) {
        return optionUint(OptionNumber.SIZE1, size);
    }

    public OutgoingMessage size2(long size) {
        return optionUint(OptionNumber.SIZE2, size);
    }

    /** The payload in UTF-8. */
    public OutgoingMessage payload(String text) {
        return payload(text.getBytes(StandardCharsets.UTF_8));
    }

    public OutgoingMessage payload(byte[] bytes) {
        this.payload = bytes.clone();
        return this;
    }

    /** Destination; defaults to the peer's {@link LockstepPeer#defaultDestination}. */
    public OutgoingMessage to(InetSocketAddress destination) {
        this.to = Objects.requireNonNull(destination, "destination");
        return this;
    }

    /**
     * The message, for tests that want to inspect or reuse it; MID must be set.
     *
     * @throws IllegalStateException if the MID is not set, or the code cannot be modelled (see {@link #encode()})
     */
    public Message build() {
        requireMid();
        if (code.isEmpty() && token.isEmpty() && options.isEmpty() && payload.length == 0) {
            return EmptyMessage.of(type, mid);
        }
        OptionSet set = optionSet();
        if (code.isRequest()) {
            return Request.builder(code).type(type).mid(mid).token(token).options(set).payload(payload).build();
        }
        if (code.isResponse()) {
            return Response.builder(code).type(type).mid(mid).token(token).options(set).payload(payload).build();
        }
        throw new IllegalStateException("code " + code + " with token/options/payload is no Message; use encode()");
    }

    /** The datagram {@link #go()} sends. */
    public byte[] encode() {
        requireMid();
        UdpMessageSerializer serializer = new UdpMessageSerializer();
        boolean modelled = code.isRequest() || code.isResponse()
                || code.isEmpty() && token.isEmpty() && options.isEmpty() && payload.length == 0;
        if (modelled) {
            return serializer.serialize(build());
        }
        // No message class holds this code: serialize as GET and patch the code byte (header byte 1).
        byte[] bytes = serializer.serialize(Request.builder(Code.GET).type(type).mid(mid).token(token)
                .options(optionSet()).payload(payload).build());
        bytes[1] = (byte) code.value();
        return bytes;
    }

    /** Encodes and sends the datagram; returns the peer for chaining further steps. */
    public LockstepPeer go() {
        if (to == null) {
            throw new IllegalStateException("no destination: call to(address) or peer.defaultDestination(address)");
        }
        peer.send(encode(), to);
        return peer;
    }

    private void requireMid() {
        if (mid < 0) {
            throw new IllegalStateException("MID not set: call mid(..) before go()");
        }
    }

    private OptionSet optionSet() {
        // fromWire does not validate, which is what lets negative tests send invalid options
        ByteArrayOutputStream values = new ByteArrayOutputStream();
        int[] index = new int[3 * options.size()];
        for (int i = 0; i < options.size(); i++) {
            Option o = options.get(i);
            index[3 * i] = o.number();
            index[3 * i + 1] = values.size();
            index[3 * i + 2] = o.length();
            values.writeBytes(o.value());
        }
        return OptionSet.fromWire(values.toByteArray(), index, options.size());
    }
}
