package io.stagecoach.core.network.internal;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * Creates request tokens (RFC 7252 §5.3.1): random bytes of a fixed length 0..8, unique among
 * the open requests to one peer. Tokens are plain {@code byte[]} until the message model's token
 * type exists; each call returns a fresh array the caller owns.
 *
 * <p>Uniqueness is checked by the caller's {@code inUse} predicate (its table of open requests),
 * so this class keeps no state per peer. Random tokens of 3 or more bytes collide with an open
 * token so rarely that {@value #RANDOM_ATTEMPTS} draws are enough; for 1 and 2 bytes (256 and
 * 65,536 possible tokens) the generator falls back to trying every value from a random point,
 * so it fails only when all are open. Length 0 means the empty token, which serves only one open
 * request per peer (§5.3.1 allows it where the peer has at most one).
 *
 * <p>The random source is drawn from under a lock; the default is one {@link SecureRandom},
 * seeded once by the JVM, since §5.3.1 asks for unguessable tokens when the client is not
 * otherwise protected against spoofed responses.
 */
public final class TokenGenerator {

    /** Longest token RFC 7252 §3 allows. */
    public static final int MAX_LENGTH = 8;
    static final int RANDOM_ATTEMPTS = 16;

    private final int length;
    private final RandomGenerator random;

    /** 8-byte tokens from a {@link SecureRandom}. */
    public TokenGenerator() {
        this(MAX_LENGTH, new SecureRandom());
    }

    /**
     * @param length token length in bytes, 0..8
     * @param random the random source; tests pass a seeded generator for repeatable tokens
     */
    public TokenGenerator(int length, RandomGenerator random) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("token length must be 0..8: " + length);
        }
        this.length = length;
        this.random = Objects.requireNonNull(random, "random");
    }

    public int length() {
        return length;
    }

    /**
     * A token for a new request to {@code peer} for which {@code inUse} is false.
     *
     * @param peer  names the peer in the exception; the token space is per peer
     * @param inUse true for tokens of the peer's open requests; it sees candidate arrays and
     *              must not keep them
     * @throws IllegalStateException if no free token was found (all tokens of a length of 0..2
     *                               open, or {@value #RANDOM_ATTEMPTS} random 3..8-byte tokens
     *                               all open, i.e. a broken {@code inUse})
     */
    public byte[] newToken(InetSocketAddress peer, Predicate<byte[]> inUse) {
        Objects.requireNonNull(inUse, "inUse");
        for (int attempt = 0; attempt < RANDOM_ATTEMPTS; attempt++) {
            byte[] token = new byte[length];
            synchronized (random) {
                random.nextBytes(token);
            }
            if (!inUse.test(token)) {
                return token;
            }
            if (length == 0) {
                break;
            }
        }
        if (length == 1 || length == 2) {
            byte[] token = scan(inUse);
            if (token != null) {
                return token;
            }
        }
        throw new IllegalStateException(length == 0
                ? "no free token for " + peer + ": token length 0 serves only one open request per peer"
                : "no free " + length + "-byte token for " + peer + ": " + describeExhaustion());
    }

    /** Tries every 1- or 2-byte token, from a random start. */
    private byte[] scan(Predicate<byte[]> inUse) {
        int count = 1 << (8 * length);
        int start;
        synchronized (random) {
            start = random.nextInt(count);
        }
        for (int i = 0; i < count; i++) {
            int value = (start + i) & (count - 1);
            byte[] token = new byte[length];
            for (int b = 0; b < length; b++) {
                token[b] = (byte) (value >>> (8 * (length - 1 - b)));
            }
            if (!inUse.test(token)) {
                return token;
            }
        }
        return null;
    }

    private String describeExhaustion() {
        return length <= 2 ? "all " + (1 << (8 * length)) + " tokens are in use by open requests"
                : RANDOM_ATTEMPTS + " random tokens were all in use; is the in-use check correct?";
    }
}
