package io.stagecoach.core.client;

import io.stagecoach.core.network.CoapEndpoint;
import io.stagecoach.elements.udp.UdpConnector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * The client endpoint shared by every {@link CoapClient} without one of its own: created and
 * started on first use, on UDP, an ephemeral port of every interface (so it reaches IPv4 and
 * IPv6 servers alike); {@link #shutdown()} destroys it and the next use creates a fresh one.
 */
final class DefaultEndpoint {

    private static CoapEndpoint endpoint;

    private DefaultEndpoint() {
    }

    static synchronized CoapEndpoint get() {
        if (endpoint == null || !endpoint.isRunning()) {
            if (endpoint != null) {
                endpoint.destroy();
            }
            CoapEndpoint e = CoapEndpoint.builder()
                    .connector(UdpConnector.builder().bindAddress(new InetSocketAddress(0)).build())
                    .build();
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
