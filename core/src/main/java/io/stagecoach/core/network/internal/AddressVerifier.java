package io.stagecoach.core.network.internal;

import io.stagecoach.elements.time.Clock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Which peer addresses are known to receive what is sent to them (RFC 7252 §11.3; RFC 9175 §2.4),
 * and the Echo values that prove it.
 *
 * <p>A CoAP server must not let a spoofed request aim a large answer at a victim: to an address
 * not verified, it sends at most {@code factor} times the size of the request. An address is
 * verified by evidence a spoofer cannot produce: a request carrying an Echo value this endpoint
 * issued to that address within {@code echoLifetime} (RFC 9175 §2.4), or an ACK to one of our
 * Confirmable messages. Verification lasts {@code verifiedLifetime}; at most {@code capacity}
 * addresses are remembered, the first verified forgotten first (it is then limited again: safe,
 * only slower).
 *
 * <p>Echo values are 8 bytes: 4 bytes of issue time (seconds on the endpoint's clock) and 4
 * bytes of HMAC-SHA256 over that time and the address, under a key drawn at construction. They
 * cost no state until used. Thread-safe.
 */
public final class AddressVerifier {

    static final int ECHO_LENGTH = 8;

    private final int factor;
    private final long verifiedLifetimeNanos;
    private final long echoLifetimeSeconds;
    private final Clock clock;
    private final long originNanos;
    private final Mac mac;
    private final int capacity;
    /** Verified addresses and until when; evicted in insertion order beyond the capacity. */
    private final ConcurrentHashMap<PeerKey, Long> verified = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<PeerKey> order = new ConcurrentLinkedQueue<>();

    /**
     * @param factor           bytes sent per byte received to an unverified address; 0 disables
     *                         the limit (every address counts as verified)
     * @param verifiedLifetime how long a verified address stays verified
     * @param echoLifetime     how long an issued Echo value is accepted
     * @param capacity         verified addresses remembered at most
     */
    public AddressVerifier(int factor, Duration verifiedLifetime, Duration echoLifetime, int capacity, Clock clock) {
        if (factor < 0 || capacity < 1) {
            throw new IllegalArgumentException("factor must be >= 0 and capacity >= 1: " + factor + ", " + capacity);
        }
        this.factor = factor;
        this.verifiedLifetimeNanos = verifiedLifetime.toNanos();
        this.echoLifetimeSeconds = Math.max(1, echoLifetime.toSeconds());
        this.clock = clock;
        this.originNanos = clock.nanoTime();
        this.capacity = capacity;
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        try {
            this.mac = Mac.getInstance("HmacSHA256");
            this.mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has HmacSHA256", e);
        }
    }

    /** Whether the limit is on at all. */
    public boolean isEnabled() {
        return factor > 0;
    }

    /**
     * Bytes that may be sent in answer to a request of {@code requestBytes} bytes, of which
     * {@code alreadySent} went out before, if the peer's address is not verified:
     * {@code Long.MAX_VALUE} when the limit is off. Cheap (no lookup): callers ask
     * {@link #isVerified} only when their answer is larger.
     */
    public long limit(int requestBytes, int alreadySent) {
        return factor == 0 ? Long.MAX_VALUE : (long) factor * requestBytes - alreadySent;
    }

    /** Whether {@code peer} is verified now. Lock-free. */
    public boolean isVerified(InetSocketAddress peer) {
        if (factor == 0) {
            return true;
        }
        Long until = verified.get(new PeerKey(peer));
        return until != null && clock.nanoTime() - until < 0;
    }

    /**
     * Records that {@code peer} proved it receives at its address. Beyond the capacity, the
     * address first verified is forgotten first, even if it was verified again since (it is then
     * limited until it proves itself once more).
     */
    public void verified(InetSocketAddress peer) {
        if (factor == 0) {
            return;
        }
        long until = clock.nanoTime() + verifiedLifetimeNanos;
        PeerKey key = new PeerKey(peer);
        if (verified.put(key, until) == null) {
            order.add(key);
        }
        while (verified.size() > capacity) {
            PeerKey eldest = order.poll();
            if (eldest == null) {
                break;
            }
            verified.remove(eldest);
        }
    }

    /** An Echo value for {@code peer} (RFC 9175 §2.2), good for the echo lifetime. */
    public byte[] echo(InetSocketAddress peer) {
        int issued = seconds();
        byte[] value = new byte[ECHO_LENGTH];
        ByteBuffer.wrap(value).putInt(issued).put(tag(peer, issued));
        return value;
    }

    /**
     * Checks an Echo value a request from {@code peer} carried: when it is one this endpoint
     * issued to that address and still fresh, the address counts as verified from now on.
     *
     * @return whether it was accepted
     */
    public boolean checkEcho(InetSocketAddress peer, byte[] value) {
        if (value == null || value.length != ECHO_LENGTH) {
            return false;
        }
        int issued = ByteBuffer.wrap(value).getInt();
        long age = seconds() - (long) issued;
        if (age < 0 || age > echoLifetimeSeconds) {
            return false;
        }
        byte[] expected = tag(peer, issued);
        byte[] got = new byte[4];
        System.arraycopy(value, 4, got, 0, 4);
        if (!MessageDigest.isEqual(expected, got)) {
            return false;
        }
        verified(peer);
        return true;
    }

    /** Addresses verified and remembered now. */
    public int size() {
        return verified.size();
    }

    private int seconds() {
        return (int) ((clock.nanoTime() - originNanos) / 1_000_000_000L);
    }

    private byte[] tag(InetSocketAddress peer, int issued) {
        InetAddress address = peer.getAddress();
        byte[] a = address == null ? peer.getHostString().getBytes(StandardCharsets.UTF_8)
                : address.getAddress();
        byte[] full;
        synchronized (mac) {
            mac.update(ByteBuffer.allocate(8).putInt(issued).putInt(peer.getPort()).array());
            mac.update(a);
            full = mac.doFinal();
        }
        byte[] tag = new byte[4];
        System.arraycopy(full, 0, tag, 0, 4);
        return tag;
    }
}
