package io.stagecoach.core.observe;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.elements.config.Configuration;

/** Shared pieces of the observe tests. */
final class ObserveFixture {

    private ObserveFixture() {
    }

    static Configuration.Builder config() {
        return CoapConfig.builder();
    }
}
