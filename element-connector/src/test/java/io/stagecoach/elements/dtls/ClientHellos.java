package io.stagecoach.elements.dtls;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/** ClientHello datagrams for the cookie tests. */
final class ClientHellos {

    private ClientHellos() {
    }

    /**
     * The smallest ClientHello BC's verifier considers (one suite, no extensions, no cookie):
     * 67 bytes.
     *
     * @param seq record sequence number (varies the bytes between flood datagrams)
     */
    static byte[] minimal(long seq) {
        byte[] body = new byte[2 + 32 + 1 + 1 + 2 + 2 + 1 + 1];
        int i = 0;
        body[i++] = (byte) 254;
        body[i++] = (byte) 253;
        for (int k = 0; k < 32; k++) {
            body[i++] = (byte) (k * 7 + seq);
        }
        body[i++] = 0; // session id
        body[i++] = 0; // cookie
        body[i++] = 0;
        body[i++] = 2;
        body[i++] = (byte) 0xC0;
        body[i++] = (byte) 0xA8; // TLS_PSK_WITH_AES_128_CCM_8
        body[i++] = 1;
        body[i++] = 0; // null compression
        byte[] out = new byte[13 + 12 + body.length];
        out[0] = 22;
        out[1] = (byte) 254;
        out[2] = (byte) 255;
        for (int k = 0; k < 6; k++) {
            out[5 + k] = (byte) (seq >>> (8 * (5 - k)));
        }
        int hs = 12 + body.length;
        out[11] = (byte) (hs >> 8);
        out[12] = (byte) hs;
        out[13] = 1; // client_hello
        out[16] = (byte) body.length; // length (24 bit)
        out[24] = (byte) body.length; // fragment_length (24 bit)
        System.arraycopy(body, 0, out, 25, body.length);
        return out;
    }

    /** {@link #minimal} with {@code cookie} (RFC 6347 §4.2.1: the hello that answers a HelloVerifyRequest). */
    static byte[] withCookie(long seq, byte[] cookie) {
        byte[] hello = minimal(seq);
        int cookieLength = 25 + 2 + 32 + 1;
        byte[] out = new byte[hello.length + cookie.length];
        System.arraycopy(hello, 0, out, 0, cookieLength);
        out[cookieLength] = (byte) cookie.length;
        System.arraycopy(cookie, 0, out, cookieLength + 1, cookie.length);
        System.arraycopy(hello, cookieLength + 1, out, cookieLength + 1 + cookie.length, hello.length - cookieLength - 1);
        int body = out.length - 25;
        int hs = body + 12;
        out[11] = (byte) (hs >> 8);
        out[12] = (byte) hs;
        out[15] = (byte) (body >> 8);
        out[16] = (byte) body;
        out[23] = (byte) (body >> 8);
        out[24] = (byte) body;
        return out;
    }

    /** The first datagram our PSK client sends: a real ClientHello with extensions. */
    static byte[] capturedFromOurClient() throws Exception {
        try (DatagramSocket trap = new DatagramSocket(DtlsTestSupport.LOOPBACK)) {
            trap.setSoTimeout((int) TimeUnit.SECONDS.toMillis(DtlsTestSupport.TIMEOUT_S));
            DtlsConnector client = DtlsTestSupport.pskClient().build();
            try {
                client.start();
                DtlsTestSupport.send(client, (java.net.InetSocketAddress) trap.getLocalSocketAddress(), new byte[] {1});
                DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
                trap.receive(p);
                return Arrays.copyOf(p.getData(), p.getLength());
            } finally {
                client.destroy();
            }
        }
    }
}
