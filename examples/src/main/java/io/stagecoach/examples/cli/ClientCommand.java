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
import io.stagecoach.elements.SafeText;
import io.stagecoach.elements.config.Configuration;
import io.stagecoach.elements.time.Scheduler;
import io.stagecoach.elements.tcp.TcpConnectorConfig.Transport;
import io.stagecoach.elements.tcp.TlsCredentials;
import io.stagecoach.examples.plugtest.Plugtest;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code ./stagecoach client [options] URI}: one request, like libcoap's {@code coap-client}
 * (flags in {@link ClientOptions}). Prints the payload (code and options too with {@code -v}; the
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
     * As {@link #run(String[], InputStream, PrintStream, PrintStream)}, with {@code -s SECONDS}
     * timed on {@code observeWindow} (tests pass a virtual clock); {@code null} times it on the
     * endpoint's own real-time scheduler.
     */
    static int run(String[] args, InputStream in, PrintStream out, PrintStream err, Scheduler observeWindow) {
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
            return ClientObserve.run(o, in, out, err, observeWindow);
        }
        CoapEndpoint endpoint = null;
        try {
            byte[] payload = payload(o, in);
            endpoint = endpoint(o, err);
            endpoint.start();
            CoapClient client = new CoapClient(o.uri, endpoint).timeout(o.timeout);
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
        } catch (CoapException | IOException | IllegalArgumentException | IllegalStateException e) {
            err.println("stagecoach client: " + oneLine(e));
            return 2;
        } finally {
            if (endpoint != null) {
                endpoint.destroy();
            }
        }
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
        Configuration.Builder config = CoapConfig.builder();
        if (o.blockSize > 0) {
            Plugtest.blockSize(config, o.blockSize);
        }
        CoapEndpointBuilder b = CoapEndpoint.builder().config(config.build());
        String scheme = CoapUri.parse(o.uri).scheme();
        Transport transport = Transport.ofScheme(scheme);
        if (scheme.equals("coaps")) {
            b.dtlsClient(new InetSocketAddress(0), CliCredentials.dtlsClient(o)); // the handshake opens with the request
        } else if (transport == null) {
            b.udp(new InetSocketAddress(0));
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
