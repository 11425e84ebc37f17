package io.stagecoach.core.observe;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.elements.EndpointContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * One established observation as a store keeps it: the registration request (GET or FETCH with
 * Observe=0 and its token, RFC 7641 §3.1) and the address of the server observed when it was
 * registered. Immutable.
 *
 * <p>{@link #encode()} gives the form every store may keep: a version byte (1), the address
 * length (4 or 16), the address, the port (2 bytes), then the request as a CoAP message over UDP
 * (RFC 7252 §3) with Message ID 0 (and type CON when the request has none yet).
 * {@link #decode(byte[])} reads it back and refuses anything else, so a store shared with a newer
 * release fails loudly rather than matching wrongly.
 */
public final class Observation {

    private static final byte VERSION = 1;

    private final Request request;
    private final InetSocketAddress peer;

    /**
     * @param request the registration, with its token (RFC 7252 §5.3.1) and Observe=0
     * @param peer    the observed server's address when the observation was registered
     * @throws IllegalArgumentException when the request has no token or no Observe=0
     */
    public Observation(Request request, InetSocketAddress peer) {
        Objects.requireNonNull(request, "request");
        this.peer = Objects.requireNonNull(peer, "peer");
        if (request.token().isEmpty()) {
            throw new IllegalArgumentException("an observation is kept by its token, and this request has none");
        }
        if (request.options().observe() != 0) {
            throw new IllegalArgumentException("an observe registration carries Observe=0, got "
                    + request.options().observe());
        }
        this.request = request.peer() == null ? request.withPeer(EndpointContext.of(peer)) : request;
    }

    public Token token() {
        return request.token();
    }

    /** The registration request, addressed to {@link #peer()}. */
    public Request request() {
        return request;
    }

    public InetSocketAddress peer() {
        return peer;
    }

    /** The stored form (see the class comment). */
    public byte[] encode() {
        // the stored form needs a type; a registration left to the stack's choice is kept as CON
        Type type = request.type() == null ? Type.CON : request.type();
        byte[] message = new UdpMessageSerializer().serialize(request.withTypeAndMid(type, 0));
        byte[] address = peer.getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(2 + address.length + 2 + message.length);
        b.put(VERSION).put((byte) address.length).put(address).putShort((short) peer.getPort()).put(message);
        return b.array();
    }

    /**
     * Reads an {@link #encode() encoded} observation.
     *
     * @throws IllegalArgumentException when {@code bytes} is not one
     */
    public static Observation decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length < 2 || bytes[0] != VERSION || (bytes[1] != 4 && bytes[1] != 16)
                || bytes.length < 2 + bytes[1] + 2 + 4) {
            throw new IllegalArgumentException("not an encoded observation (version " + VERSION + ")");
        }
        int n = bytes[1];
        try {
            InetAddress address = InetAddress.getByAddress(Arrays.copyOfRange(bytes, 2, 2 + n));
            int port = ((bytes[2 + n] & 0xFF) << 8) | (bytes[3 + n] & 0xFF);
            InetSocketAddress peer = new InetSocketAddress(address, port);
            Message m = new UdpMessageParser().parse(Arrays.copyOfRange(bytes, 4 + n, bytes.length),
                    EndpointContext.of(peer), 0);
            if (!(m instanceof Request r)) {
                throw new IllegalArgumentException("an encoded observation holds a request, not " + m);
            }
            return new Observation(r, peer);
        } catch (UnknownHostException | MessageFormatException e) {
            throw new IllegalArgumentException("not an encoded observation: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Observation other && other.peer.equals(peer)
                && Arrays.equals(other.encode(), encode());
    }

    @Override
    public int hashCode() {
        return token().hashCode() * 31 + peer.hashCode();
    }

    @Override
    public String toString() {
        return "Observation[" + token() + " " + request.options().uriPathString() + " at " + peer + "]";
    }
}
