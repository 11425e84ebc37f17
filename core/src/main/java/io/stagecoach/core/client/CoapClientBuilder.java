package io.stagecoach.core.client;

import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import io.stagecoach.elements.tcp.TlsCredentials;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.network.MessageInterceptor;
import io.stagecoach.core.network.stack.LayerStack;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.dtls.DtlsConnectorConfig;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.BindFamily;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Builds a {@link CoapClient}. Without {@link #endpoint} the client gets an endpoint of its own
 * (UDP on an ephemeral port of every interface, or {@link #bind}; for a {@code coaps} URI a DTLS
 * client with the {@link #dtls} credentials, which it requires; for a {@code coap+tcp},
 * {@code coaps+tcp}, {@code coap+ws} or {@code coaps+ws} URI a client of that transport, with
 * the {@link #tls} credentials for the secure ones), built with this builder's
 * configuration, clock, interceptors and layer edits, started by {@link #build()} and destroyed by
 * {@link CoapClient#close()}.
 *
 * <pre>{@code
 * try (CoapClient client = CoapClient.builder("coap://[::1]/sealed")
 *         .config(CoapConfig.builder().set(CoapConfig.NSTART, 2).build())
 *         .layers(stack -> stack.addAbove(LayerStack.TOKEN, "seal", new SealLayer(key)))
 *         .build()) {
 *     client.get();
 * }
 * }</pre>
 */
public final class CoapClientBuilder {

    private final String uri;
    private final CoapEndpointBuilder endpointBuilder = CoapEndpoint.builder();
    private InetSocketAddress bind = BindFamily.everyInterface(0);
    private CoapEndpoint endpoint;
    private boolean customized;
    private Duration timeout;
    private boolean nons;
    private TlsCredentials credentials;
    private Consumer<DtlsConnectorConfig.Builder> dtls;
    private Configuration config;

    CoapClientBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** An endpoint of the caller's, started and destroyed by the caller; excludes the endpoint settings below. */
    public CoapClientBuilder endpoint(CoapEndpoint endpoint) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        return this;
    }

    /** The local address of the client's own endpoint; default an ephemeral port of every interface. */
    public CoapClientBuilder bind(InetSocketAddress bind) {
        this.bind = Objects.requireNonNull(bind, "bind");
        customized = true;
        return this;
    }

    /** Configuration of the client's own endpoint (and its UDP connector). */
    public CoapClientBuilder config(Configuration config) {
        endpointBuilder.config(config);
        this.config = config;
        customized = true;
        return this;
    }

    /** Clock and timer of the client's own endpoint (a {@code VirtualClock} in tests). */
    public CoapClientBuilder scheduler(Scheduler scheduler) {
        endpointBuilder.scheduler(scheduler);
        customized = true;
        return this;
    }

    /** Edits the layer stack of the client's own endpoint (see {@link CoapEndpointBuilder#layers}). */
    public CoapClientBuilder layers(Consumer<LayerStack.Builder> edit) {
        endpointBuilder.layers(edit);
        customized = true;
        return this;
    }

    /** Adds an interceptor to the client's own endpoint. */
    public CoapClientBuilder interceptor(MessageInterceptor interceptor) {
        endpointBuilder.interceptor(interceptor);
        customized = true;
        return this;
    }

    /** Anything else {@link CoapEndpointBuilder} offers, for the client's own endpoint. */
    public CoapClientBuilder configureEndpoint(Consumer<CoapEndpointBuilder> edit) {
        edit.accept(endpointBuilder);
        customized = true;
        return this;
    }

    /**
     * What the client's own endpoint trusts (and proves) over TLS, for {@code coaps+tcp} and
     * {@code coaps+ws} URIs; default {@link TlsCredentials#systemTrust()}.
     */
    public CoapClientBuilder tls(TlsCredentials credentials) {
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        customized = true;
        return this;
    }

    /**
     * What the client's own endpoint proves and trusts over DTLS, for {@code coaps} URIs, set on the
     * DTLS connector's builder: {@link io.stagecoach.elements.dtls.PskCredentials} (PSK), a
     * {@link io.stagecoach.elements.dtls.CertificateVerifier} such as
     * {@link io.stagecoach.elements.dtls.TrustStoreVerifier} to check the server's certificate or
     * raw public key, and {@link io.stagecoach.elements.dtls.CertificateCredentials} of its own
     * (X.509 chain or raw public key). Required for a {@code coaps} URI: there is no default.
     *
     * <pre>{@code
     * CoapClient.builder("coaps://gateway/temp")
     *         .dtls(d -> d.pskCredentials(PskCredentials.of("sensor-1", secret)))
     *         .build();
     * }</pre>
     */
    public CoapClientBuilder dtls(Consumer<DtlsConnectorConfig.Builder> security) {
        this.dtls = Objects.requireNonNull(security, "security");
        customized = true;
        return this;
    }

    /** See {@link CoapClient#timeout(Duration)}. */
    public CoapClientBuilder timeout(Duration timeout) {
        this.timeout = timeout;
        return this;
    }

    /** See {@link CoapClient#useNONs()}. */
    public CoapClientBuilder useNONs() {
        this.nons = true;
        return this;
    }

    /**
     * @throws IllegalStateException when both an endpoint and settings for an own endpoint are given,
     *     for a {@code coaps} URI without {@link #dtls}, or when the DTLS credentials do not fit a client
     * @throws UncheckedIOException when the own endpoint cannot bind
     */
    public CoapClient build() {
        CoapClient client;
        if (endpoint != null) {
            if (customized) {
                throw new IllegalStateException("endpoint(..) excludes the settings of an endpoint of the client's own");
            }
            client = new CoapClient(uri, endpoint, false);
        } else {
            String scheme = CoapUri.parse(uri).scheme();
            Transport transport = Transport.ofScheme(scheme);
            if (scheme.equals("coaps")) {
                if (dtls == null) {
                    throw new IllegalStateException("a coaps URI needs DTLS credentials: CoapClientBuilder.dtls(d ->"
                            + " d.pskCredentials(...)), or .certificateVerifier(...) for certificates");
                }
                endpointBuilder.dtlsClient(bind, dtls);
            } else if (transport != null) {
                endpointBuilder.streamClient(transport, transport.isSecure()
                        ? (credentials != null ? credentials : TlsCredentials.systemTrust()) : null);
            } else {
                endpointBuilder.udp(bind, DefaultEndpoint.clientConnector(config));
            }
            CoapEndpoint own = endpointBuilder.build();
            try {
                own.start();
                client = new CoapClient(uri, own, true);
            } catch (IOException e) {
                own.destroy();
                throw new UncheckedIOException("cannot start the client's endpoint on " + bind + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
                own.destroy();
                throw e;
            }
        }
        client.timeout(timeout);
        if (nons) {
            client.useNONs();
        }
        return client;
    }
}
