package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.dtls.CookieVerifier.Verdict;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bouncycastle.tls.DatagramSender;
import org.junit.jupiter.api.Test;

/**
 * The receive thread's cookie check against BouncyCastle's {@code DTLSVerifier} with the same
 * secret: the same HelloVerifyRequest byte for byte, a cookie from one accepted by the other, the
 * same hellos dropped (RFC 6347 §4.2.1).
 */
class CookieVerifierTest {

    private final CookieVerifier verifier = new CookieVerifier(new SecureRandom());
    private final InetSocketAddress source = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40123);

    /** What BC's verifier sends for {@code hello} from {@code from}: the datagrams, and whether it admitted. */
    private List<byte[]> bcAnswers(byte[] hello, InetSocketAddress from, boolean[] admitted) {
        List<byte[]> sent = new ArrayList<>();
        DatagramSender capture = new DatagramSender() {
            @Override
            public int getSendLimit() {
                return 1400;
            }

            @Override
            public void send(byte[] buf, int off, int len) {
                sent.add(Arrays.copyOfRange(buf, off, off + len));
            }
        };
        admitted[0] = verifier.verifyWithBouncyCastle(CookieVerifier.clientId(from), hello, capture) != null;
        return sent;
    }

    private byte[] answer(byte[] hello, InetSocketAddress from) {
        byte[] hvr = new byte[CookieVerifier.HVR_LENGTH];
        assertEquals(Verdict.ANSWER, verifier.check(hello, from, hvr));
        return hvr;
    }

    @Test
    void helloVerifyRequestIsBouncyCastlesByteForByte() throws Exception {
        for (byte[] hello : List.of(ClientHellos.minimal(7), ClientHellos.capturedFromOurClient())) {
            byte[] ours = answer(hello, source);
            boolean[] admitted = {true};
            List<byte[]> theirs = bcAnswers(hello, source, admitted);
            assertEquals(1, theirs.size());
            assertArrayEquals(theirs.get(0), ours);
            assertFalse(admitted[0]);
            assertTrue(ours.length <= hello.length, ours.length + " > " + hello.length);
            assertEquals(hello[10], ours[10], "the hello's record sequence number is echoed");
        }
    }

    @Test
    void cookieFromTheFastPathAdmitsAtBouncyCastleAndOnlyFromTheSameAddressAndPort() throws Exception {
        byte[] first = ClientHellos.capturedFromOurClient();
        byte[] cookie = Arrays.copyOfRange(answer(first, source), 28, 60);
        byte[] second = withCookie(first, cookie);
        assertEquals(Verdict.VALID, verifier.check(second, source, new byte[CookieVerifier.HVR_LENGTH]));
        boolean[] admitted = {false};
        assertTrue(bcAnswers(second, source, admitted).isEmpty());
        assertTrue(admitted[0], "BouncyCastle accepts the cookie");

        InetSocketAddress otherPort = new InetSocketAddress(source.getAddress(), source.getPort() + 1);
        byte[] hvr = answer(second, otherPort);
        assertFalse(Arrays.equals(cookie, Arrays.copyOfRange(hvr, 28, 60)));
        assertArrayEquals(bcAnswers(second, otherPort, admitted).get(0), hvr, "a wrong cookie gets BC's answer");
        assertFalse(admitted[0]);

        byte[] tampered = withCookie(first, flip(cookie));
        assertEquals(Verdict.ANSWER, verifier.check(tampered, source, new byte[CookieVerifier.HVR_LENGTH]));
        assertNull(verifier.verifyWithBouncyCastle(CookieVerifier.clientId(source), tampered, noSend()));
    }

    @Test
    void malformedHellosAreDroppedAsBouncyCastleDropsThem() {
        byte[] minimal = ClientHellos.minimal(1);
        List<byte[]> malformed = new ArrayList<>();
        malformed.add(shortened(minimal, 1)); // body of 38 bytes: below the minimum
        byte[] odd = minimal.clone();
        odd[25 + 2 + 32 + 1 + 1 + 1] = 3; // cipher_suites length odd
        malformed.add(odd);
        byte[] noNull = minimal.clone();
        noNull[noNull.length - 1] = 1; // compression methods without null
        malformed.add(noNull);
        byte[] longSession = minimal.clone();
        longSession[25 + 2 + 32] = 33; // session_id longer than 32
        malformed.add(longSession);
        byte[] trailing = Arrays.copyOf(minimal, minimal.length + 1); // one byte after the methods, inside the record
        setLengths(trailing, minimal.length + 1 - 25);
        malformed.add(trailing);
        for (byte[] hello : malformed) {
            assertEquals(Verdict.DROP, verifier.check(hello, source, new byte[CookieVerifier.HVR_LENGTH]),
                    Arrays.toString(hello));
            boolean[] admitted = {false};
            assertTrue(bcAnswers(hello, source, admitted).isEmpty(), "BouncyCastle answers none either");
        }
    }

    @Test
    void otherFormsAreLeftToBouncyCastle() {
        byte[] fragment = ClientHellos.minimal(2);
        fragment[25 - 1] = (byte) (fragment[25 - 1] - 1); // fragment_length short of the message length
        assertEquals(Verdict.UNUSUAL, verifier.check(fragment, source, new byte[CookieVerifier.HVR_LENGTH]));
        byte[] reserved = ClientHellos.minimal(3);
        reserved[26] = (byte) 254; // client_version {254, 254}
        assertEquals(Verdict.UNUSUAL, verifier.check(reserved, source, new byte[CookieVerifier.HVR_LENGTH]));
    }

    private static DatagramSender noSend() {
        return new DatagramSender() {
            @Override
            public int getSendLimit() {
                return 1400;
            }

            @Override
            public void send(byte[] buf, int off, int len) {
            }
        };
    }

    private static byte[] flip(byte[] cookie) {
        byte[] c = cookie.clone();
        c[5] ^= 0x40;
        return c;
    }

    /** {@code hello} (no cookie) with {@code cookie} in its cookie field, lengths fixed. */
    static byte[] withCookie(byte[] hello, byte[] cookie) {
        int cookieAt = 25 + 2 + 32 + 1 + (hello[25 + 2 + 32] & 0xFF);
        assertEquals(0, hello[cookieAt], "a hello without a cookie");
        byte[] out = new byte[hello.length + cookie.length];
        System.arraycopy(hello, 0, out, 0, cookieAt);
        out[cookieAt] = (byte) cookie.length;
        System.arraycopy(cookie, 0, out, cookieAt + 1, cookie.length);
        System.arraycopy(hello, cookieAt + 1, out, cookieAt + 1 + cookie.length, hello.length - cookieAt - 1);
        out[13 + 5] = 1; // message_seq 1, as a client's second hello
        setLengths(out, out.length - 25);
        return out;
    }

    private static byte[] shortened(byte[] hello, int by) {
        byte[] out = Arrays.copyOf(hello, hello.length - by);
        setLengths(out, out.length - 25);
        return out;
    }

    private static void setLengths(byte[] hello, int body) {
        int record = body + 12;
        hello[11] = (byte) (record >> 8);
        hello[12] = (byte) record;
        for (int at : new int[] {14, 22}) {
            hello[at] = (byte) (body >> 16);
            hello[at + 1] = (byte) (body >> 8);
            hello[at + 2] = (byte) body;
        }
    }
}
