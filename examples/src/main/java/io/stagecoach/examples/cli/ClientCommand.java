package io.stagecoach.examples.cli;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapException;
import io.stagecoach.core.client.CoapRejectedException;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.client.CoapTimeoutException;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.endpoint.CoapEndpointBuilder;
import io.stagecoach.core.network.MessageTracer;
import io.stagecoach.elements.RebindingConnector;
import io.stagecoach.elements.SafeText;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.dtls.DtlsConnectorConfig;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import io.stagecoach.elements.tcp.TlsCredentials;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.udp.BindFamily;
import io.stagecoach.elements.udp.UdpConnector;
import io.stagecoach.examples.plugtest.Plugtest;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * {@code ./stagecoach client [options] URI}: one request, like libcoap's {@code coap-client}
 * (flags in {@link ClientOptions}), or {@code -G COUNT} of them a second apart, with
 * {@code --rebind} each from a new local port. Prints the payload (code and options too with {@code -v}; the
 * code of an error answer on stderr);
 * returns 0 for a 2.xx answer, 1 for 4.xx/5.xx, 2 for a timeout, a RST, bad options or any other
 * error, with a one-line reason on stderr.
 *
 * <p>Runs on its own endpoint (UDP, an ephemeral port of every interface), destroyed before
 * returning, so the command leaves no thread behind.
 */
public final class ClientCommand {

    private ClientCommand() {
    }

    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        return run(args, in, out, err, null);
    }

    /**
     * As {@link #run(String[], InputStream, PrintStream, PrintStream)}, with {@code -s SECONDS} and
     * the pauses of {@code -G} timed on {@code clock} (tests pass a virtual clock); {@code null}
     * times them on the endpoint's own real-time scheduler.
     */
    static int run(String[] args, InputStream in, PrintStream out, PrintStream err, Scheduler clock) {
        ClientOptions o;
        try {
            o = ClientOptions.parse(args);
        } catch (UsageException e) {
            err.println("stagecoach client: " + e.getMessage());
            return 2;
        }
        if (o.help) {
            out.print(ClientOptions.usage());
            return 0;
        }
        if (o.observe != null) {
            return ClientObserve.run(o, in, out, err, clock);
        }
        CoapEndpoint endpoint = null;
        try {
            byte[] payload = payload(o, in);
            RebindingConnector rebinding = o.rebind ? rebinding(o) : null;
            endpoint = endpoint(o, err, rebinding);
            endpoint.start();
            CoapClient client = new CoapClient(o.uri, endpoint).timeout(o.timeout);
            int status = 0;
            for (int i = 0; i < o.repeat; i++) {
                if (i > 0) {
                    pause(clock != null ? clock : endpoint.scheduler(), REPEAT_PAUSE);
                    if (rebinding != null) {
                        InetSocketAddress now = rebinding.rebind();
                        if (o.verbose) {
                            err.println("rebound to local port " + now.getPort());
                        }
                    }
                }
                status = Math.max(status, once(client, o, payload, out, err));
            }
            return status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("stagecoach client: interrupted");
            return 2;
        } catch (CoapException | IOException | IllegalArgumentException | IllegalStateException e) {
            err.println("stagecoach client: " + oneLine(e));
            return 2;
        } finally {
            if (endpoint != null) {
                endpoint.destroy();
            }
        }
    }

    /** libcoap's {@code -G}: "a second delay between each one". */
    static final Duration REPEAT_PAUSE = Duration.ofSeconds(1);

    /** One request and its answer, printed; the exit status it alone would give. */
    private static int once(CoapClient client, ClientOptions o, byte[] payload, PrintStream out, PrintStream err)
            throws IOException {
        try {
            CoapResponse response = client.advanced(request(client, o, payload));
            new ResponsePrinter(out, o.verbose, o.output).print(response.advanced());
            if (!response.isSuccess() && !o.verbose) {
                err.println(response.code()); // as aiocoap-client: the error code on stderr, e.g. "4.04 Not Found"
            }
            return exitStatus(response.code());
        } catch (CoapTimeoutException e) {
            err.println("stagecoach client: timeout: no response within " + seconds(o) + " s (" + e.getMessage() + ")");
            return 2;
        } catch (CoapRejectedException e) {
            err.println("stagecoach client: the server rejected the request (RST)");
            return 2;
        }
    }

    private static void pause(Scheduler clock, Duration pause) throws InterruptedException {
        CountDownLatch elapsed = new CountDownLatch(1);
        clock.schedule(elapsed::countDown, pause);
        elapsed.await();
    }

    /** A UDP connector on an ephemeral port of every interface that {@code --rebind} moves. */
    static RebindingConnector rebinding(ClientOptions o) {
        Configuration config = config(o);
        return new RebindingConnector(() -> UdpConnector.builder().apply(config)
                .bindAddress(BindFamily.everyInterface(0)).build());
    }

    static int exitStatus(Code code) {
        return code.codeClass() == 2 ? 0 : 1;
    }

    static Request request(CoapClient client, ClientOptions o, byte[] payload) {
        Request.Builder b = client.newRequest(o.method).type(o.non ? Type.NON : Type.CON);
        if (payload != null) {
            b.payload(payload);
        }
        if (o.contentFormat >= 0) {
            b.options().contentFormat(o.contentFormat);
        }
        if (o.accept >= 0) {
            b.options().accept(o.accept);
        }
        if (o.token != null) {
            b.token(o.token);
        }
        for (Option opt : o.options) {
            b.options().add(opt);
        }
        if (o.blockSize > 0 && (payload == null || payload.length == 0)) {
            b.options().block2(o.block(0)); // early negotiation of the response's block size (RFC 7959 §2.4)
        }
        return b.build();
    }

    /**
     * An endpoint whose block size is {@code -b} (uploads over it go Block1), tracing with {@code -v};
     * UDP for coap URIs, DTLS for coaps ({@code -u}/{@code -k}, {@code -C}/{@code -c}/{@code -j}), a
     * client of the transport for the RFC 8323 schemes.
     */
    static CoapEndpoint endpoint(ClientOptions o, PrintStream err) {
        return endpoint(o, err, null);
    }

    /**
     * As {@link #endpoint(ClientOptions, PrintStream)}; a {@code coap} URI on {@code rebinding} if
     * given, and a {@code coaps} one with its DTLS records on it (the session and its Connection ID
     * survive a rebind, RFC 9146 §6).
     */
    static CoapEndpoint endpoint(ClientOptions o, PrintStream err, RebindingConnector rebinding) {
        CoapEndpointBuilder b = CoapEndpoint.builder().config(config(o));
        String scheme = CoapUri.parse(o.uri).scheme();
        Transport transport = Transport.ofScheme(scheme);
        if (scheme.equals("coaps")) {
            Consumer<DtlsConnectorConfig.Builder> security = CliCredentials.dtlsClient(o);
            if (rebinding != null) {
                security = security.andThen(dtls -> dtls.transport(c -> rebinding));
            }
            b.dtlsClient(new InetSocketAddress(0), security); // the handshake opens with the request
        } else if (transport == null) {
            if (rebinding != null) {
                b.connector(rebinding);
            } else {
                b.udp(BindFamily.everyInterface(0));
            }
        } else {
            TlsCredentials credentials = transport.isSecure() ? CliCredentials.tlsClient(o) : null;
            b.streamClient(transport, credentials); // RFC 8323: a connection, opened by the request
        }
        if (o.verbose) {
            // -v: one line per message on the wire, blocks and retransmissions included; option
            // values are the server's text, escaped like everything else the client prints
            b.interceptor(new MessageTracer((outgoing, m) ->
                    err.println((outgoing ? "> " : "< ") + SafeText.forTerminal(m.toString(), false))));
        }
        return b.build();
    }

    /** The client's configuration: the block size of {@code -b}, if given. */
    private static Configuration config(ClientOptions o) {
        Configuration.Builder config = CoapConfig.builder();
        if (o.blockSize > 0) {
            Plugtest.blockSize(config, o.blockSize);
        }
        return config.build();
    }

    static byte[] payload(ClientOptions o, InputStream in) throws IOException {
        if (o.payloadFile == null) {
            return o.payload;
        }
        return o.payloadFile.equals("-") ? in.readAllBytes() : Files.readAllBytes(Path.of(o.payloadFile));
    }

    private static String seconds(ClientOptions o) {
        return Double.toString(o.timeout.toMillis() / 1000.0);
    }

    /** The message of {@code e} on one line, escaped: it may quote what the server sent. */
    static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return SafeText.forTerminal(m.replace('\n', ' '), false);
    }
}
