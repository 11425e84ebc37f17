package io.stagecoach.core.testutil;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Seeded byte mutations for the codecs' fuzz-style tests: one to three of a bit flip, a
 * truncation, a one-byte insertion and a byte overwrite, so that inputs stay close to valid
 * messages and parsing gets past the first check.
 */
public final class Mutations {

    private Mutations() {
    }

    /** A mutated copy of {@code seed}. */
    public static byte[] mutate(SplittableRandom rnd, byte[] seed) {
        byte[] b = seed.clone();
        int mutations = 1 + rnd.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            switch (rnd.nextInt(4)) {
                case 0 -> { // bit flip
                    if (b.length > 0) {
                        b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                    }
                }
                case 1 -> b = Arrays.copyOf(b, rnd.nextInt(b.length + 1)); // truncation
                case 2 -> { // insertion
                    int at = rnd.nextInt(b.length + 1);
                    byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = (byte) rnd.nextInt(256);
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                default -> { // random byte overwrite
                    if (b.length > 0) {
                        b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                    }
                }
            }
        }
        return b;
    }
}
