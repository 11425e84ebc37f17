package io.stagecoach.core.client;

import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.config.UdpConfig;
import io.stagecoach.elements.config.UdpConnectorChoice;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import io.stagecoach.elements.tcp.TlsCredentials;
import io.stagecoach.elements.udp.BindFamily;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The client endpoints shared by every {@link CoapClient} without one of its own, one per URI
 * scheme: created and started on first use; for {@code coap} on UDP, an ephemeral port of every interface (so it reaches IPv4 and
 * IPv6 servers alike), with the configuration of {@link #configure} or else the defaults with the
 * system properties {@code stagecoach.<key>} applied; {@link #shutdown()} destroys it and the next
 * use creates a fresh one.
 */
final class DefaultEndpoint {

    /**
     * Why {@code coaps} has no shared endpoint: a DTLS client proves and trusts something (a PSK, a
     * certificate, a CA), and a process-wide default would have to guess it.
     */
    static final String COAPS_NEEDS_CREDENTIALS = "coaps (DTLS) needs credentials, which the shared default"
            + " endpoint does not have: CoapClient.builder(uri).dtls(d -> d.pskCredentials(...)) or"
            + " .certificateVerifier(...), or new CoapClient(uri, aDtlsEndpoint)";

    private static final Map<String, CoapEndpoint> ENDPOINTS = new HashMap<>();
    private static Configuration config;

    private DefaultEndpoint() {
    }

    /** {@code null} restores the defaults with the system properties applied. */
    static synchronized void configure(Configuration configuration) {
        config = configuration;
    }

    static synchronized CoapEndpoint get() {
        return get("coap");
    }

    /**
     * The shared endpoint of {@code scheme}: UDP for {@code coap}, a client of the transport for
     * {@code coap+tcp}, {@code coaps+tcp}, {@code coap+ws} and {@code coaps+ws} (the secure ones
     * trusting the JDK's default trust store), created on first use.
     *
     * @throws IllegalStateException for {@code coaps}: see {@link #COAPS_NEEDS_CREDENTIALS}
     */
    static synchronized CoapEndpoint get(String scheme) {
        if (scheme.equals("coaps")) {
            throw new IllegalStateException(COAPS_NEEDS_CREDENTIALS);
        }
        CoapEndpoint endpoint = ENDPOINTS.get(scheme);
        if (endpoint == null || !endpoint.isRunning()) {
            if (endpoint != null) {
                endpoint.destroy();
            }
            Configuration c = config != null ? config : CoapConfig.builder().applySystemProperties().build();
            Transport transport = Transport.ofScheme(scheme);
            CoapEndpoint e = (transport == null ? CoapEndpoint.builder().udp(BindFamily.everyInterface(0), clientConnector(c))
                    : CoapEndpoint.builder().streamClient(transport, transport.isSecure() ? TlsCredentials.systemTrust()
                            : null)).config(c).build();
            try {
                e.start();
            } catch (IOException ex) {
                e.destroy();
                throw new UncheckedIOException("cannot start the default client endpoint: " + ex.getMessage(), ex);
            }
            ENDPOINTS.put(scheme, e);
            endpoint = e;
        }
        return endpoint;
    }

    static synchronized void shutdown() {
        ENDPOINTS.values().forEach(CoapEndpoint::destroy);
        ENDPOINTS.clear();
    }

    /**
     * The UDP connector of a client's own endpoint: the JDK connector unless {@code config} sets
     * {@code udp.connector}. A client talks to few peers at a modest rate, where the JDK
     * connector costs less CPU per request than Netty's event loops and binds one socket instead
     * of one per processor (docs/benchmarks/physical-limit.md, CPU at a fixed offered load).
     */
    static UdpConnectorChoice clientConnector(Configuration config) {
        return config != null && config.isSet(UdpConfig.CONNECTOR) ? config.get(UdpConfig.CONNECTOR)
                : UdpConnectorChoice.JDK;
    }
}
