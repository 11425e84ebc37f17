package io.stagecoach.core.network.internal.cc;

import io.stagecoach.core.config.CongestionControlMode;
import java.util.Objects;

/**
 * The congestion-control strategy of one CoAP endpoint: a stateless factory of per-peer state.
 *
 * <p>The reliability layer keeps one {@link PeerCongestionState} per peer endpoint (for example in
 * a {@link PeerStateMap}, RFC 8085 §3.1 / draft-ietf-core-cocoa-03 §3: the scope is the peer's
 * transport address) and one {@link RetransmissionTimer} per confirmable exchange:
 *
 * <pre>{@code
 * PeerCongestionState peer = peers.computeIfAbsent(address, a -> cc.newPeerState(now));
 * RetransmissionTimer timer = peer.startExchange(now, random);   // at the first transmission
 * schedule(timer.timeoutNanos());
 * // timer fired: if timer.retransmissions() < MAX_RETRANSMIT, retransmit and
 * schedule(timer.onTimeout());
 * // else give up:
 * timer.onFailure(now);
 * // ACK or response for the CON arrived:
 * timer.onSuccess(now);
 * }</pre>
 *
 * <p>Implementations are immutable and thread-safe.
 */
public interface CongestionControl {

    CongestionControlMode mode();

    CongestionSettings settings();

    /**
     * Fresh state for a peer not seen before (or evicted): no RTT samples, no carried backoff.
     *
     * @param nowNanos reading of the endpoint's {@code io.stagecoach.elements.time.Clock}; starts
     *     the CoCoA aging period (draft-ietf-core-cocoa-03 §4.3)
     */
    PeerCongestionState newPeerState(long nowNanos);

    /** A bounded LRU map sized by {@link CongestionSettings#peerStateCapacity()}. */
    default <K> PeerStateMap<K, PeerCongestionState> newPeerStateMap() {
        return new PeerStateMap<>(settings().peerStateCapacity());
    }

    static CongestionControl of(CongestionControlMode mode, CongestionSettings settings) {
        return new ModeCongestionControl(Objects.requireNonNull(mode, "mode"),
                Objects.requireNonNull(settings, "settings"));
    }
}
