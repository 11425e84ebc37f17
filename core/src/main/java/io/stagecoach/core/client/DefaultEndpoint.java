package io.stagecoach.core.client;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.elements.config.Configuration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * The client endpoint shared by every {@link CoapClient} without one of its own: created and
 * started on first use, on UDP, an ephemeral port of every interface (so it reaches IPv4 and
 * IPv6 servers alike), with the configuration of {@link #configure} or else the defaults with the
 * system properties {@code stagecoach.<key>} applied; {@link #shutdown()} destroys it and the next
 * use creates a fresh one.
 */
final class DefaultEndpoint {

    private static CoapEndpoint endpoint;
    private static Configuration config;

    private DefaultEndpoint() {
    }

    /** {@code null} restores the defaults with the system properties applied. */
    static synchronized void configure(Configuration configuration) {
        config = configuration;
    }

    static synchronized CoapEndpoint get() {
        if (endpoint == null || !endpoint.isRunning()) {
            if (endpoint != null) {
                endpoint.destroy();
            }
            Configuration c = config != null ? config : CoapConfig.builder().applySystemProperties().build();
            CoapEndpoint e = CoapEndpoint.builder().udp(new InetSocketAddress(0)).config(c).build();
            try {
                e.start();
            } catch (IOException ex) {
                e.destroy();
                throw new UncheckedIOException("cannot start the default client endpoint: " + ex.getMessage(), ex);
            }
            endpoint = e;
        }
        return endpoint;
    }

    static synchronized void shutdown() {
        if (endpoint != null) {
            endpoint.destroy();
            endpoint = null;
        }
    }
}
