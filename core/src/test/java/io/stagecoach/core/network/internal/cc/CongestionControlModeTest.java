package io.stagecoach.core.network.internal.cc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.core.config.CongestionControlMode;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CongestionControlModeTest {

    @Test
    void sixModesWithTheAgreedNames() {
        assertEquals(List.of("DEFAULT", "COCOA", "DEFAULT_FULL_BACKOFF_1", "DEFAULT_FULL_BACKOFF_2",
                "COCOA_FULL_BACKOFF_1", "COCOA_FULL_BACKOFF_2"),
                Arrays.stream(CongestionControlMode.values()).map(Enum::name).toList());
    }

    @Test
    void eachModeBuildsTheMatchingPeerState() {
        for (CongestionControlMode mode : CongestionControlMode.values()) {
            CongestionControl cc = CongestionControl.of(mode, CongestionSettings.defaults());
            assertEquals(mode, cc.mode());
            PeerCongestionState peer = cc.newPeerState(0);
            boolean cocoa = mode.name().startsWith("COCOA");
            assertEquals(cocoa, mode.measuresRtt(), mode.name());
            assertEquals(mode.name().contains("FULL_BACKOFF"), mode.carriesBackoff(), mode.name());
            Class<?> expected = cocoa ? CocoaPeerState.class : DefaultPeerState.class;
            assertEquals(expected, peer.getClass(), mode.name());
        }
        assertThrows(NullPointerException.class, () -> CongestionControl.of(null, CongestionSettings.defaults()));
    }
}
