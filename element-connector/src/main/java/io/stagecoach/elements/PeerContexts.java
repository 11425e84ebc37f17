package io.stagecoach.elements;

import java.net.Inet6Address;
import java.net.InetSocketAddress;

/**
 * The contexts of the peers one receive thread hears from, reused while a peer keeps its address:
 * a datagram from a peer seen recently gets the same {@link EndpointContext} as its predecessor
 * instead of a new one. That is one object less per datagram, and what outlives the datagram (an
 * exchange, a deduplication entry) refers to one long-lived context rather than a fresh one each
 * time.
 *
 * <p>Direct-mapped and bounded whatever the number of peers: the address's hash chooses one of
 * {@code slots} entries, and a peer whose entry holds another address takes it over. A flood from
 * many (spoofed) sources therefore only replaces entries, each at the cost of the context the
 * connector would have made anyway. An IPv6 address with a scope (link-local, RFC 4007 §6) is
 * not cached: its equality ignores the scope, which tells two peers apart.
 *
 * <p>Not thread-safe: one per receive thread.
 */
public final class PeerContexts {

    /**
     * Slots of a connector's table (64 KiB of references with compressed oops): enough that 5,000
     * peers on consecutive addresses all keep their entries (4,096 kept only 54 % of them, so almost
     * half the datagrams at that many peers made a new context), and about three quarters of 5,000
     * random addresses do.
     */
    public static final int DEFAULT_SLOTS = 16_384;

    private final EndpointContext[] entries;
    private final int shift;

    /** @param slots entries, rounded up to a power of two (at least 1) */
    public PeerContexts(int slots) {
        int size = slots <= 1 ? 1 : Integer.highestOneBit(slots - 1) << 1;
        this.entries = new EndpointContext[size];
        this.shift = 32 - Integer.numberOfTrailingZeros(size);
    }

    /** The context of {@code peer}: the one given to its last datagram if still held, else a new one. */
    public EndpointContext of(InetSocketAddress peer) {
        if (peer.getAddress() instanceof Inet6Address v6 && v6.getScopeId() != 0) {
            return EndpointContext.of(peer);
        }
        int slot = shift == 32 ? 0 : (peer.hashCode() * 0x9E3779B9) >>> shift;
        EndpointContext held = entries[slot];
        if (held != null && held.peer().equals(peer)) {
            return held;
        }
        EndpointContext made = EndpointContext.of(peer);
        entries[slot] = made;
        return made;
    }
}
