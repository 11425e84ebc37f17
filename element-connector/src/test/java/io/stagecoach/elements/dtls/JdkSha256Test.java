package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Random;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.params.KeyParameter;
import org.junit.jupiter.api.Test;

/** The JDK's SHA-256 behind BouncyCastle's {@code Digest} gives BouncyCastle's answers, forked or not, bare or in HMAC. */
class JdkSha256Test {

    private static byte[] finish(Digest d) {
        byte[] out = new byte[d.getDigestSize() + 3];
        d.doFinal(out, 3);
        return out;
    }

    @Test
    void sameDigestsAsBouncyCastlesAcrossForksAndResets() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            byte[] a = new byte[random.nextInt(300)];
            byte[] b = new byte[random.nextInt(300)];
            random.nextBytes(a);
            random.nextBytes(b);
            SHA256Digest bc = new SHA256Digest();
            JdkSha256 jdk = new JdkSha256();
            bc.update(a, 0, a.length);
            jdk.update(a, 0, a.length);
            SHA256Digest bcFork = new SHA256Digest(bc);
            JdkSha256 jdkFork = jdk.copy();
            bc.update(b, 0, b.length);
            jdk.update(b, 0, b.length);
            bcFork.update((byte) round);
            jdkFork.update((byte) round);
            assertArrayEquals(finish(bc), finish(jdk));
            assertArrayEquals(finish(bcFork), finish(jdkFork), "a fork continues on its own");
            bc.update(a, 0, a.length);
            jdk.update(a, 0, a.length);
            assertArrayEquals(finish(bc), finish(jdk), "doFinal resets");
        }
    }

    @Test
    void sameHmacAsBouncyCastles() {
        byte[] key = "a key longer than nothing".getBytes();
        byte[] data = new byte[777];
        new Random(7).nextBytes(data);
        HMac bc = new HMac(new SHA256Digest());
        HMac jdk = new HMac(new JdkSha256());
        bc.init(new KeyParameter(key));
        jdk.init(new KeyParameter(key));
        for (int i = 0; i < 3; i++) {
            bc.update(data, 0, data.length - i);
            jdk.update(data, 0, data.length - i);
            byte[] x = new byte[32];
            byte[] y = new byte[32];
            bc.doFinal(x, 0);
            jdk.doFinal(y, 0);
            assertArrayEquals(x, y);
        }
    }
}
