package io.stagecoach.elements.dtls;

import java.nio.charset.StandardCharsets;

/** Hand-encoded CoAP messages for the interop tests (RFC 7252 §3). */
final class CoapBytes {

    private CoapBytes() {
    }

    /** A 2.05 Content answer to {@code request}: ACK if it was CON, else NON; same token and message ID. */
    static byte[] contentReply(byte[] request, String payload) {
        int tkl = request[0] & 0x0F;
        int type = (request[0] >> 4) & 0x03;
        byte[] body = payload.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[4 + tkl + 1 + body.length];
        out[0] = (byte) (0x40 | (type == 0 ? 0x20 : 0x10) | tkl); // CON -> ACK, else NON
        out[1] = 0x45; // 2.05
        out[2] = request[2];
        out[3] = request[3];
        System.arraycopy(request, 4, out, 4, tkl);
        out[4 + tkl] = (byte) 0xFF;
        System.arraycopy(body, 0, out, 5 + tkl, body.length);
        return out;
    }

    /** A CON GET /.well-known/core with a 2-byte token and message ID 0x1234. */
    static byte[] getWellKnownCore() {
        byte[] wk = ".well-known".getBytes(StandardCharsets.US_ASCII);
        byte[] core = "core".getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[4 + 2 + 2 + wk.length + 1 + core.length];
        int i = 0;
        out[i++] = 0x42; // ver 1, CON, TKL 2
        out[i++] = 0x01; // GET
        out[i++] = 0x12;
        out[i++] = 0x34;
        out[i++] = 0x7A;
        out[i++] = 0x7B;
        out[i++] = (byte) 0xBD; // Uri-Path (11): delta 11 -> 13 + ext, length 11 -> 13 + ext
        out[i++] = 0x00;        // delta ext: 11 - 13 = ... encoded as 13 + 0 = 13? see below
        // Option delta 11 = 0xB, length 11 = 0xB fit in the nibbles; rewrite without extensions:
        i -= 2;
        out[i++] = (byte) 0xBB;
        System.arraycopy(wk, 0, out, i, wk.length);
        i += wk.length;
        out[i++] = 0x04; // Uri-Path again: delta 0, length 4
        System.arraycopy(core, 0, out, i, core.length);
        i += core.length;
        return java.util.Arrays.copyOf(out, i);
    }

    /** Response code byte of a message. */
    static int code(byte[] message) {
        return message[1] & 0xFF;
    }
}
