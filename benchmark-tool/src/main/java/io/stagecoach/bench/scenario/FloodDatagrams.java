package io.stagecoach.bench.scenario;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageSerializer;
import java.nio.charset.StandardCharsets;

/**
 * The datagrams of the flood scenario's attacks, encoded once by the codec and patched per send
 * (the MID at bytes 2..3, a 2-byte token at bytes 4..5; RFC 7252 §3).
 */
final class FloodDatagrams {

    /** Token of every request of the scenario's attackers and probes: two bytes, as in the 23-byte GET. */
    static final int TOKEN_LENGTH = 2;

    private FloodDatagrams() {
    }

    /**
     * Attack (a): {@code 40 45 MID}, a CON 2.05 response without token or payload, answering
     * nothing; each socket counts its MIDs up from its own start.
     */
    static DatagramFlood.Payload unsolicitedResponses() {
        return (buf, socket, seq) -> {
            int mid = (int) (seq + socket * 7_919L) & 0xFFFF;
            buf.clear();
            buf.put((byte) 0x40).put((byte) 0x45).putShort((short) mid).flip();
        };
    }

    /**
     * Attack (b): requests for {@code /benchmark} in turn a CON GET, a NON GET (its NON response
     * needs a MID for the peer: the per-source MID budget) and a CON POST with a 5-byte payload
     * (not idempotent, so the deduplication store keeps it for EXCHANGE_LIFETIME: the per-source
     * deduplication budget), each with a new MID and token per socket.
     */
    static DatagramFlood.Payload requestMix() {
        byte[][] templates = {
            request(Type.CON, Code.GET, "/benchmark", null, false),
            request(Type.NON, Code.GET, "/benchmark", null, false),
            request(Type.CON, Code.POST, "/benchmark", "flood".getBytes(StandardCharsets.US_ASCII), false)};
        return (buf, socket, seq) -> {
            byte[] t = templates[(int) ((seq + socket) % templates.length)];
            int mid = (int) (seq + socket * 7_919L) & 0xFFFF;
            buf.clear();
            buf.put(t).putShort(2, (short) mid).putShort(4, (short) seq).flip();
        };
    }

    /**
     * An encoded request with MID 0 and the token {@code 12 34}: Uri-Path from {@code path}
     * (no Uri-Host or Uri-Port, as a client that addresses the server by IP sends it), an
     * optional payload, Observe 0 when {@code observe}.
     */
    static byte[] request(Type type, Code method, String path, byte[] payload, boolean observe) {
        return request(type, method, path, payload, observe, -1);
    }

    /** As above, with a Block2 option asking for block 0 of size {@code 2^(szx+4)} unless {@code szx} is -1. */
    static byte[] request(Type type, Code method, String path, byte[] payload, boolean observe, int szx) {
        Request.Builder b = Request.builder(method).type(type).mid(0).token(Token.of(new byte[] {0x12, 0x34}));
        if (!path.equals("/")) {
            b.options().uriPath(path);
        }
        if (observe) {
            b.observe(0);
        }
        if (szx >= 0) {
            b.options().block2(BlockOption.of(0, false, szx));
        }
        if (payload != null) {
            b.payload(payload);
        }
        return new UdpMessageSerializer().serialize(b.build());
    }
}
