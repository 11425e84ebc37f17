package io.stagecoach.core.network.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TokenGeneratorTest {

    static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.9", 5683);

    @Test
    void defaultTokensAreEightRandomBytes() {
        TokenGenerator g = new TokenGenerator();
        assertEquals(8, g.length());
        byte[] a = g.newToken(PEER, t -> false);
        byte[] b = g.newToken(PEER, t -> false);
        assertEquals(8, a.length);
        assertFalse(java.util.Arrays.equals(a, b), "two 8-byte SecureRandom tokens");
    }

    @Test
    void seededGeneratorIsRepeatable() {
        byte[] a = new TokenGenerator(4, new SplittableRandom(11)).newToken(PEER, t -> false);
        byte[] b = new TokenGenerator(4, new SplittableRandom(11)).newToken(PEER, t -> false);
        assertArrayEquals(a, b);
    }

    @Test
    void tokenInUseIsSkipped() {
        byte[] taken = new TokenGenerator(8, new SplittableRandom(1)).newToken(PEER, t -> false);
        byte[] next = new TokenGenerator(8, new SplittableRandom(1))
                .newToken(PEER, t -> java.util.Arrays.equals(t, taken));
        assertEquals(8, next.length);
        assertFalse(java.util.Arrays.equals(taken, next), "the first draw equals the open token, so a second is drawn");
    }

    @Test
    void oneByteTokensFillAll256BeforeFailing() {
        TokenGenerator g = new TokenGenerator(1, new SplittableRandom(2));
        Set<Byte> open = new HashSet<>();
        for (int i = 0; i < 256; i++) {
            byte[] t = g.newToken(PEER, c -> open.contains(c[0]));
            assertTrue(open.add(t[0]), "token " + t[0] + " was already open");
        }
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> g.newToken(PEER, c -> open.contains(c[0])));
        assertEquals("no free 1-byte token for /192.0.2.9:5683: all 256 tokens are in use by open requests",
                e.getMessage());
    }

    @Test
    void twoByteScanFindsTheOnlyFreeToken() {
        TokenGenerator g = new TokenGenerator(2, new SplittableRandom(3));
        byte[] t = g.newToken(PEER, c -> !(c[0] == 0x12 && c[1] == 0x34));
        assertArrayEquals(new byte[] {0x12, 0x34}, t);
    }

    @Test
    void emptyTokenServesOneOpenRequest() {
        TokenGenerator g = new TokenGenerator(0, new SplittableRandom(4));
        assertEquals(0, g.newToken(PEER, c -> false).length);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> g.newToken(PEER, c -> true));
        assertEquals("no free token for /192.0.2.9:5683: token length 0 serves only one open request per peer",
                e.getMessage());
    }

    @Test
    void longTokensGiveUpWhenEveryDrawIsInUse() {
        TokenGenerator g = new TokenGenerator(3, new SplittableRandom(5));
        int[] asked = {0};
        assertThrows(IllegalStateException.class, () -> g.newToken(PEER, c -> ++asked[0] > 0));
        assertEquals(TokenGenerator.RANDOM_ATTEMPTS, asked[0]);
    }

    @Test
    void manyEightByteTokensAreDistinct() {
        TokenGenerator g = new TokenGenerator(8, new SplittableRandom(6));
        Set<Long> open = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            byte[] t = g.newToken(PEER, c -> open.contains(ByteBuffer.wrap(c).getLong()));
            assertTrue(open.add(ByteBuffer.wrap(t).getLong()));
        }
    }

    @Test
    void lengthOutside0To8IsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new TokenGenerator(9, new SplittableRandom()));
        assertThrows(IllegalArgumentException.class, () -> new TokenGenerator(-1, new SplittableRandom()));
    }
}
