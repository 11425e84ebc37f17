package io.stagecoach.core.testutil;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.elements.config.Configuration;

/**
 * Configurations for tests whose subject depends on a default that follows the machine.
 *
 * <p>{@code coap.protocol-threads} defaults to one thread per core but to 0 (inline on the
 * receive thread) when the JVM sees a single processor, so a test that asserts a handler runs on
 * a {@code stagecoach-protocol-} thread must ask for the pool explicitly or it fails on a
 * one-core CI machine. Also in core's test-jar.
 */
public final class TestConfigs {

    private TestConfigs() {
    }

    /** Every definition at its default, except PROTOCOL_THREADS = {@code threads}. */
    public static Configuration protocolThreads(int threads) {
        return CoapConfig.builder().set(CoapConfig.PROTOCOL_THREADS, threads).build();
    }
}
