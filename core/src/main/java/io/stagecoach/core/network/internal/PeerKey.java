package io.stagecoach.core.network.internal;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A peer's socket address as a map key that resists hash flooding: a keyed hash and a total
 * order ({@link PeerHashing}). Use it instead of a bare {@code InetSocketAddress} for maps a
 * remote party can fill.
 */
public record PeerKey(InetSocketAddress address) implements Comparable<PeerKey> {

    public PeerKey {
        Objects.requireNonNull(address, "address");
    }

    @Override
    public int hashCode() {
        return PeerHashing.hash(address);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerKey k && k.address.equals(address);
    }

    @Override
    public int compareTo(PeerKey o) {
        return PeerHashing.compare(address, o.address);
    }
}
