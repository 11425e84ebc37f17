package io.stagecoach.elements.dtls;

import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.tls.DTLSRequest;
import org.bouncycastle.tls.DTLSVerifier;
import org.bouncycastle.tls.DatagramSender;

/**
 * The stateless cookie exchange of RFC 6347 §4.2.1 on the receive thread, cheap enough for a
 * flood: a ClientHello without the right cookie is answered from its raw bytes with the JDK's
 * HMAC-SHA256, one {@link Mac} kept per thread (no per-hello parse into objects, no MAC set-up).
 * Only a hello whose cookie verifies goes on to BouncyCastle's {@link DTLSVerifier}, which
 * checks it again and makes the {@link DTLSRequest} its server protocol starts from.
 *
 * <p>Both compute the same cookie: BouncyCastle's HMAC-SHA256, keyed with one secret, over the
 * client's address and port followed by the ClientHello body without its cookie field. The
 * secret is drawn here and handed to BouncyCastle's verifier as the one value of the random it
 * draws its key from (its constructor's only use of it); {@code CookieVerifierTest} holds the two
 * to the same answer, byte for byte. BouncyCastle's verifier computes its HMAC over the JDK's
 * SHA-256 ({@link DtlsCrypto}), as the handshake does: with BouncyCastle's Java SHA-256 the second
 * check of every admitted hello was a code path of its own for the JIT to compile and slower
 * once compiled.
 *
 * <p>Hellos this parser does not read as plain DTLS 1.0/1.2 ClientHellos in one record and one
 * fragment go to BouncyCastle's verifier unchanged ({@link Verdict#UNUSUAL}). Hellos it drops,
 * BouncyCastle drops too (the same length checks); the one difference is a hello whose extensions
 * are framed right but wrong inside (a duplicate type), which gets a HelloVerifyRequest here and
 * none from BouncyCastle: that costs the sender nothing but the round trip, and the returned
 * cookie then meets BouncyCastle's full parse. A HelloVerifyRequest is {@value #HVR_LENGTH}
 * bytes and is only built for a datagram at least that large (RFC 6347 §4.2.1: no
 * amplification); the smallest hello answered has 64.
 */
final class CookieVerifier {

    /** Record header (13) + handshake header (12) + server_version (2) + cookie length (1) + cookie (32). */
    static final int HVR_LENGTH = 60;
    private static final int RECORD_HEADER = 13;
    private static final int MESSAGE_HEADER = 12;
    private static final int COOKIE_LENGTH = 32;
    /** BC answers no hello with a shorter body (the syntactic minimum of a DTLS ClientHello). */
    private static final int MIN_BODY = 39;
    private static final int DTLS_MAJOR = 254;
    private static final int DTLS_1_0_MINOR = 255;
    private static final int DTLS_1_2_MINOR = 253;

    /** What to do with a ClientHello datagram. */
    enum Verdict {
        /** Malformed: BouncyCastle would not answer it either; drop it. */
        DROP,
        /** Cookie missing or wrong: send the HelloVerifyRequest now in the caller's buffer. */
        ANSWER,
        /** Cookie verified: let BouncyCastle's verifier make the request. */
        VALID,
        /** Not a form this parser reads: let BouncyCastle's verifier decide. */
        UNUSUAL
    }

    private final DTLSVerifier bc;
    private final ThreadLocal<Mac> macs;

    CookieVerifier(SecureRandom random) {
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        SecretKeySpec key = new SecretKeySpec(secret, "HmacSHA256");
        this.macs = ThreadLocal.withInitial(() -> {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(key);
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is required of every JDK", e);
            }
        });
        this.bc = new DTLSVerifier(new DtlsCrypto(new OneValueRandom(secret)));
        Arrays.fill(secret, (byte) 0);
    }

    /** What the cookie is bound to besides the hello: the client's address and port. */
    static byte[] clientId(InetSocketAddress source) {
        byte[] ip = source.getAddress().getAddress();
        byte[] id = Arrays.copyOf(ip, ip.length + 2);
        id[ip.length] = (byte) (source.getPort() >> 8);
        id[ip.length + 1] = (byte) source.getPort();
        return id;
    }

    /** BouncyCastle's verifier with the same secret: for {@link Verdict#VALID} and {@link Verdict#UNUSUAL} hellos. */
    DTLSRequest verifyWithBouncyCastle(byte[] clientId, byte[] datagram, DatagramSender sender) {
        return bc.verifyRequest(clientId, datagram, 0, datagram.length, sender);
    }

    /**
     * Checks the cookie of the ClientHello that starts {@code b} (a record of epoch 0 carrying a
     * client_hello), reading the record and handshake headers itself; the receive path, whose
     * screen read them already, uses {@link #check(byte[], int, int, InetSocketAddress, byte[])}.
     */
    Verdict check(byte[] b, InetSocketAddress source, byte[] hvr) {
        if (b.length < RECORD_HEADER + MESSAGE_HEADER || (b[0] & 0xFF) != RecordHeader.HANDSHAKE
                || (b[1] & 0xFF) != DTLS_MAJOR || b[3] != 0 || b[4] != 0) {
            return Verdict.UNUSUAL;
        }
        int recordLength = u16(b, 11);
        int bodyLength = recordLength - MESSAGE_HEADER;
        if (recordLength > RecordHeader.MAX_FRAGMENT_LENGTH || RECORD_HEADER + recordLength > b.length
                || b[RECORD_HEADER] != 1 || u24(b, RECORD_HEADER + 1) != bodyLength
                || u24(b, RECORD_HEADER + 6) != 0 || u24(b, RECORD_HEADER + 9) != bodyLength) {
            return Verdict.UNUSUAL; // another record layout, a fragment: BC decides
        }
        return check(b, RECORD_HEADER + MESSAGE_HEADER, bodyLength, source, hvr);
    }

    /**
     * Checks the cookie of a ClientHello whose body is {@code b[body, body + bodyLength)}: the
     * receive screen found a DTLS record of epoch 0 at the start of {@code b} holding exactly one
     * handshake fragment, a whole client_hello with this body (RFC 6347 §4.2.2). On
     * {@link Verdict#ANSWER}, {@code hvr} (at least {@value #HVR_LENGTH} bytes) holds the
     * HelloVerifyRequest, with the hello's record sequence number (RFC 6347 §4.2.1).
     */
    Verdict check(byte[] b, int body, int bodyLength, InetSocketAddress source, byte[] hvr) {
        if (bodyLength < MIN_BODY) {
            return Verdict.DROP;
        }
        int end = body + bodyLength;
        int major = b[body] & 0xFF;
        int minor = b[body + 1] & 0xFF;
        if (major != DTLS_MAJOR || (minor != DTLS_1_0_MINOR && minor != DTLS_1_2_MINOR)) {
            return Verdict.UNUSUAL;
        }
        int sessionIdAt = body + 2 + 32;
        int sessionIdLength = b[sessionIdAt] & 0xFF;
        int cookieAt = sessionIdAt + 1 + sessionIdLength;
        if (sessionIdLength > 32 || cookieAt >= end) {
            return Verdict.DROP;
        }
        int cookieLength = b[cookieAt] & 0xFF;
        int afterCookie = cookieAt + 1 + cookieLength;
        if (cookieLength > (minor == DTLS_1_2_MINOR ? 255 : 32) || !wellFormedTail(b, afterCookie, end)) {
            return Verdict.DROP;
        }
        byte[] expected = hvr; // the cookie is computed into its place in the answer
        int cookieOut = RECORD_HEADER + MESSAGE_HEADER + 3;
        Mac mac = macs.get();
        byte[] ip = source.getAddress().getAddress();
        mac.update(ip);
        mac.update((byte) (source.getPort() >> 8));
        mac.update((byte) source.getPort());
        mac.update(b, body, cookieAt - body);
        mac.update(b, afterCookie, end - afterCookie);
        try {
            mac.doFinal(expected, cookieOut);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC output does not fit", e);
        }
        if (cookieLength == COOKIE_LENGTH && sameInConstantTime(b, cookieAt + 1, expected, cookieOut)) {
            return Verdict.VALID;
        }
        if (b.length < HVR_LENGTH) {
            return Verdict.DROP; // cannot happen above MIN_BODY, kept as the rule's guard
        }
        writeHelloVerifyRequest(b, hvr);
        return Verdict.ANSWER;
    }

    /** Compares the cookie without an early exit (like {@code MessageDigest.isEqual}, without copies). */
    private static boolean sameInConstantTime(byte[] a, int aAt, byte[] b, int bAt) {
        int diff = 0;
        for (int i = 0; i < COOKIE_LENGTH; i++) {
            diff |= a[aAt + i] ^ b[bAt + i];
        }
        return diff == 0;
    }

    /** cipher_suites, compression_methods (with null) and the extensions block, ending exactly at {@code end}. */
    private static boolean wellFormedTail(byte[] b, int at, int end) {
        if (at + 2 > end) {
            return false;
        }
        int suites = u16(b, at);
        at += 2;
        if (suites < 2 || (suites & 1) != 0 || at + suites + 1 > end) {
            return false;
        }
        at += suites;
        int methods = b[at++] & 0xFF;
        if (methods < 1 || at + methods > end) {
            return false;
        }
        boolean nullMethod = false;
        for (int i = 0; i < methods; i++) {
            nullMethod |= b[at + i] == 0;
        }
        at += methods;
        if (!nullMethod) {
            return false;
        }
        if (at == end) {
            return true;
        }
        if (at + 2 > end || at + 2 + u16(b, at) != end) {
            return false;
        }
        for (at += 2; at < end; ) { // each extension: type (2), length (2), data
            if (at + 4 > end) {
                return false;
            }
            at += 4 + u16(b, at + 2);
        }
        return at == end;
    }

    /** RFC 6347 §4.2.1: server_version DTLS 1.0 in a DTLS 1.0 record, as BouncyCastle writes it. */
    private static void writeHelloVerifyRequest(byte[] hello, byte[] out) {
        int messageLength = 3 + COOKIE_LENGTH;
        out[0] = (byte) RecordHeader.HANDSHAKE;
        out[1] = (byte) DTLS_MAJOR;
        out[2] = (byte) DTLS_1_0_MINOR;
        out[3] = 0;
        out[4] = 0;
        System.arraycopy(hello, 5, out, 5, 6); // the hello's record sequence number
        out[11] = 0;
        out[12] = (byte) (MESSAGE_HEADER + messageLength);
        out[13] = 3; // hello_verify_request
        out[14] = 0;
        out[15] = 0;
        out[16] = (byte) messageLength;
        Arrays.fill(out, 17, 22, (byte) 0); // message_seq 0, fragment_offset 0
        out[22] = 0;
        out[23] = 0;
        out[24] = (byte) messageLength;
        out[25] = (byte) DTLS_MAJOR;
        out[26] = (byte) DTLS_1_0_MINOR;
        out[27] = COOKIE_LENGTH;
        // out[28 .. 60) already holds the cookie
    }

    private static int u16(byte[] b, int at) {
        return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
    }

    private static int u24(byte[] b, int at) {
        return ((b[at] & 0xFF) << 16) | ((b[at + 1] & 0xFF) << 8) | (b[at + 2] & 0xFF);
    }

    /**
     * Hands out one value once: {@link DTLSVerifier} draws its 32-byte HMAC key from its crypto's
     * random in its constructor and uses that random for nothing else.
     */
    private static final class OneValueRandom extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private transient byte[] value;

        OneValueRandom(byte[] value) {
            this.value = value.clone();
        }

        @Override
        public synchronized void nextBytes(byte[] bytes) {
            if (value == null || bytes.length != value.length) {
                throw new IllegalStateException("the cookie secret is handed out once, to DTLSVerifier");
            }
            System.arraycopy(value, 0, bytes, 0, bytes.length);
            Arrays.fill(value, (byte) 0);
            value = null;
        }
    }
}
