package io.stagecoach.examples.interop;

import io.stagecoach.elements.tcp.TlsCredentials;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.californium.core.CoapClient;
import org.eclipse.californium.core.CoapHandler;
import org.eclipse.californium.core.CoapObserveRelation;
import org.eclipse.californium.core.CoapResource;
import org.eclipse.californium.core.CoapResponse;
import org.eclipse.californium.core.CoapServer;
import org.eclipse.californium.core.coap.CoAP.ResponseCode;
import org.eclipse.californium.core.coap.CoAP.Type;
import org.eclipse.californium.core.coap.MediaTypeRegistry;
import org.eclipse.californium.core.config.CoapConfig;
import org.eclipse.californium.core.network.CoapEndpoint;
import org.eclipse.californium.core.server.resources.CoapExchange;
import org.eclipse.californium.elements.DtlsEndpointContext;
import org.eclipse.californium.elements.EndpointContext;
import org.eclipse.californium.elements.config.CertificateAuthenticationMode;
import org.eclipse.californium.elements.config.Configuration;
import org.eclipse.californium.elements.config.UdpConfig;
import org.eclipse.californium.elements.util.Bytes;
import org.eclipse.californium.scandium.DTLSConnector;
import org.eclipse.californium.scandium.config.DtlsConfig;
import org.eclipse.californium.scandium.config.DtlsConfig.DtlsRole;
import org.eclipse.californium.scandium.config.DtlsConnectorConfig;
import org.eclipse.californium.scandium.dtls.CertificateType;
import org.eclipse.californium.scandium.dtls.pskstore.AdvancedSinglePskStore;
import org.eclipse.californium.scandium.dtls.x509.SingleCertificateProvider;
import org.eclipse.californium.scandium.dtls.x509.StaticNewAdvancedCertificateVerifier;

/**
 * Eclipse Californium 3.13 with Scandium over DTLS, the peer of {@link CaliforniumDtlsInteropTest}
 * in a JVM of its own (started with the test class path), so that its threads, sockets and
 * BouncyCastle-free crypto stay out of ours.
 *
 * <pre>
 * server MODE CID PEMDIR          prints "PORT n", then serves until killed:
 *                                 /hello, /whoami (principal and the connection ID it reads, or -),
 *                                 /obs (CON notifications every 200 ms), /large (3000 bytes)
 * client MODE CID PEMDIR URI [N]  GET URI, prints "CODE c" and "PAYLOAD p"; with N observes and
 *                                 prints "NOTIFY p" for N notifications; exit 0, or 1 on failure
 * </pre>
 * MODE: {@code psk} (identity and secret of {@link SecurePlugtest}), {@code x509} (the PEM files of
 * the test PKI: client certificates required by the server), {@code psk-x509} (both, server),
 * {@code rpk} (raw public keys of the test PKI's key pairs). CID: the length of the connection ID
 * this side asks for, or {@code none} for no RFC 9146 support.
 */
public final class CaliforniumDtlsPeer {

    static final String LARGE = "0123456789".repeat(300);

    private CaliforniumDtlsPeer() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        boolean server = args[0].equals("server");
        String mode = args[1];
        Integer cid = args[2].equals("none") ? null : Integer.valueOf(args[2]);
        Path pem = Path.of(args[3]);

        DtlsConfig.register();
        CoapConfig.register();
        UdpConfig.register();
        Configuration config = Configuration.createStandardWithoutFile()
                .set(DtlsConfig.DTLS_ROLE, server ? DtlsRole.SERVER_ONLY : DtlsRole.CLIENT_ONLY)
                .set(DtlsConfig.DTLS_CONNECTION_ID_LENGTH, cid)
                .set(DtlsConfig.DTLS_CLIENT_AUTHENTICATION_MODE,
                        mode.equals("psk") ? CertificateAuthenticationMode.NONE : CertificateAuthenticationMode.NEEDED);
        DtlsConnectorConfig.Builder dtls = DtlsConnectorConfig.builder(config)
                .setAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        String side = server ? "server" : "client";
        if (mode.startsWith("psk")) {
            dtls.setAdvancedPskStore(new AdvancedSinglePskStore(SecurePlugtest.IDENTITY,
                    SecurePlugtest.SECRET.getBytes(StandardCharsets.UTF_8)));
        }
        if (mode.endsWith("x509")) {
            List<X509Certificate> chain = TlsCredentials.readCertificates(pem.resolve(side + ".pem"));
            PrivateKey key = TlsCredentials.readKey(pem.resolve(side + ".key"));
            dtls.setCertificateIdentityProvider(new SingleCertificateProvider(key,
                    chain.toArray(new X509Certificate[0]), CertificateType.X_509));
            dtls.setAdvancedCertificateVerifier(StaticNewAdvancedCertificateVerifier.builder()
                    .setTrustedCertificates(TlsCredentials.readCertificates(pem.resolve("ca.pem"))
                            .toArray(new X509Certificate[0]))
                    .build());
        }
        if (mode.equals("rpk")) {
            X509Certificate own = TlsCredentials.readCertificates(pem.resolve(side + ".pem")).get(0);
            dtls.setCertificateIdentityProvider(new SingleCertificateProvider(
                    TlsCredentials.readKey(pem.resolve(side + ".key")), own.getPublicKey()));
            dtls.setAdvancedCertificateVerifier(StaticNewAdvancedCertificateVerifier.builder().setTrustAllRPKs().build());
        }
        CoapEndpoint endpoint = new CoapEndpoint.Builder().setConfiguration(config)
                .setConnector(new DTLSConnector(dtls.build())).build();
        if (server) {
            serve(config, endpoint, out);
        } else {
            System.exit(request(endpoint, args[4], args.length > 5 ? Integer.parseInt(args[5]) : 0, out));
        }
    }

    private static void serve(Configuration config, CoapEndpoint endpoint, PrintStream out) throws Exception {
        CoapServer server = new CoapServer(config);
        server.addEndpoint(endpoint);
        AtomicInteger counter = new AtomicInteger();
        CoapResource obs = new CoapResource("obs") {
            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(ResponseCode.CONTENT, Integer.toString(counter.get()), MediaTypeRegistry.TEXT_PLAIN);
            }
        };
        obs.setObservable(true);
        obs.setObserveType(Type.CON);
        obs.getAttributes().setObservable();
        server.add(new CoapResource("hello") {
            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(ResponseCode.CONTENT, "hello from Californium over DTLS", MediaTypeRegistry.TEXT_PLAIN);
            }
        }, new CoapResource("whoami") {
            @Override
            public void handleGET(CoapExchange exchange) {
                EndpointContext context = exchange.advanced().getRequest().getSourceContext();
                Principal who = context.getPeerIdentity();
                Bytes cid = context.get(DtlsEndpointContext.KEY_READ_CONNECTION_ID);
                exchange.respond(ResponseCode.CONTENT, (who == null ? "anonymous" : who.getName()) + " "
                        + (cid == null || cid.isEmpty() ? "-" : cid.getAsString().toLowerCase()),
                        MediaTypeRegistry.TEXT_PLAIN);
            }
        }, obs, new CoapResource("large") {
            @Override
            public void handleGET(CoapExchange exchange) {
                exchange.respond(ResponseCode.CONTENT, LARGE, MediaTypeRegistry.TEXT_PLAIN);
            }
        });
        server.start();
        ScheduledExecutorService changes = Executors.newSingleThreadScheduledExecutor();
        changes.scheduleAtFixedRate(() -> {
            counter.incrementAndGet();
            obs.changed();
        }, 200, 200, TimeUnit.MILLISECONDS);
        out.println("PORT " + endpoint.getAddress().getPort());
        new CountDownLatch(1).await(); // until the test kills this JVM
    }

    private static int request(CoapEndpoint endpoint, String uri, int notifications, PrintStream out) throws Exception {
        CoapClient client = new CoapClient(uri);
        client.setEndpoint(endpoint);
        client.setTimeout(15_000L);
        try {
            if (notifications == 0) {
                CoapResponse r = client.get();
                if (r == null) {
                    out.println("TIMEOUT");
                    return 1;
                }
                out.println("CODE " + r.getCode());
                out.println("PAYLOAD " + r.getResponseText());
                return 0;
            }
            CountDownLatch seen = new CountDownLatch(notifications + 1); // the registration answer too
            CoapObserveRelation relation = client.observeAndWait(new CoapHandler() {
                @Override
                public void onLoad(CoapResponse response) {
                    out.println("NOTIFY " + response.getResponseText());
                    seen.countDown();
                }

                @Override
                public void onError() {
                    out.println("ERROR");
                }
            });
            boolean all = seen.await(15, TimeUnit.SECONDS);
            relation.proactiveCancel();
            return all ? 0 : 1;
        } finally {
            client.shutdown();
            endpoint.destroy();
        }
    }
}
