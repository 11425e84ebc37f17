package io.stagecoach.core.network.internal.cc;

import io.stagecoach.core.config.CongestionControlMode;

/** {@link CongestionControl} selecting the per-peer state class by mode. */
record ModeCongestionControl(CongestionControlMode mode, CongestionSettings settings)
        implements CongestionControl {

    @Override
    public PeerCongestionState newPeerState(long nowNanos) {
        if (mode.measuresRtt()) {
            return new CocoaPeerState(settings, mode.fullBackoff(), nowNanos);
        }
        return new DefaultPeerState(settings, mode.fullBackoff());
    }
}
