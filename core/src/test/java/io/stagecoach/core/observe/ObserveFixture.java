package io.stagecoach.core.observe;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.elements.config.Configuration;

/** Shared pieces of the observe tests. */
final class ObserveFixture {

    private ObserveFixture() {
    }

    static Configuration.Builder config() {
        // these tests script the block-wise and observe mechanics at full size: no amplification
        // limit (RFC 7252 §11.3; tested on its own in security/AmplificationTest)
        return CoapConfig.builder().set(CoapConfig.AMPLIFICATION_FACTOR, 0);
    }
}
