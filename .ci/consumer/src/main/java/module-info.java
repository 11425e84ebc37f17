/** A consumer of Stagecoach's published API; reads only what io.stagecoach.core exports. */
module example.consumer {
    requires io.stagecoach.core;
    exports consumer;
}
