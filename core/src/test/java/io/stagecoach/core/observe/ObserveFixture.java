package io.stagecoach.core.observe;

import io.stagecoach.core.config.ConfigDocsMain;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.ModuleDefinitions;

/** Shared pieces of the observe tests. */
final class ObserveFixture {

    private ObserveFixture() {
    }

    static Configuration.Builder config() {
        return Configuration.defaults(ConfigDocsMain.ALL.groups().toArray(new ModuleDefinitions[0])).newBuilder();
    }
}
