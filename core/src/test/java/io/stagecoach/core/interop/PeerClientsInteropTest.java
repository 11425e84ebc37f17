package io.stagecoach.core.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * aiocoap 0.4.17's and libcoap 4.3.1's command-line clients against a test-only responder built
 * from Stagecoach's codec: it parses each request with {@code UdpMessageParser} and answers a GET
 * of /hello with a piggybacked 2.05 "hello" (RFC 7252 §5.2.1) encoded by
 * {@code UdpMessageSerializer}. The responder runs on the test thread while the client process
 * lives, so the test starts no thread.
 */
@Tag("interop")
class PeerClientsInteropTest {

    private static final Duration CLIENT_DEADLINE = Duration.ofSeconds(15);
    private static final Duration POLL = Duration.ofMillis(100);

    @Test
    void aiocoapClientGetsHello() throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.AIOCOAP_CLIENT);
        try (CodecSocket socket = CodecSocket.bindLoopback()) {
            String uri = "coap://127.0.0.1:" + socket.port() + "/hello";
            try (PeerProcess client = PeerProcess.start(exe, uri)) {
                assertFetchedHello(socket, client);
            }
        }
    }

    @Test
    void libcoapClientGetsHello() throws Exception {
        Path exe = InteropPeers.fromEnvironment().assumePeer(Peer.LIBCOAP_CLIENT);
        try (CodecSocket socket = CodecSocket.bindLoopback()) {
            String uri = "coap://127.0.0.1:" + socket.port() + "/hello";
            // -B 5: give up after 5 s instead of libcoap's default 90 s if we never answer.
            try (PeerProcess client = PeerProcess.start(exe, "-B", "5", "-m", "get", uri)) {
                assertFetchedHello(socket, client);
            }
        }
    }

    private static void assertFetchedHello(CodecSocket socket, PeerProcess client) throws Exception {
        List<Request> requests = serveWhileAlive(socket, client);
        int exit = client.awaitExit(Duration.ofSeconds(5));
        String seen = "requests " + requests + "\n" + socket.log() + client.describe();

        assertEquals(0, exit, seen);
        assertEquals("hello", client.stdout().strip(), seen);
        assertFalse(requests.isEmpty(), seen);
        Request first = requests.get(0);
        assertEquals(Code.GET, first.code(), seen);
        assertEquals(List.of("hello"), first.options().uriPath(), seen);
    }

    /** Answers the client's messages until it exits (or the deadline passes); returns its requests. */
    private static List<Request> serveWhileAlive(CodecSocket socket, PeerProcess client) throws Exception {
        List<Request> requests = new ArrayList<>();
        long end = System.nanoTime() + CLIENT_DEADLINE.toNanos();
        while (client.isAlive() && System.nanoTime() < end) {
            Optional<Message> in = socket.receive(POLL);
            if (in.isEmpty()) {
                continue;
            }
            Message message = in.get();
            if (message instanceof Request request) {
                requests.add(request);
                socket.send(answer(request), request.peer().peer());
            } else if (message.type() == Type.CON) {
                // A ping or a CON response we did not ask for: reject it (RFC 7252 §4.2, §4.3).
                socket.send(EmptyMessage.rstFor(message), message.peer().peer());
            }
        }
        return requests;
    }

    private static Response answer(Request request) {
        boolean hello = request.code().equals(Code.GET) && request.options().uriPath().equals(List.of("hello"));
        Response.Builder b = Response.forRequest(request, hello ? Code.CONTENT : Code.NOT_FOUND)
                // Piggybacked for a CON, NON answer for a NON (RFC 7252 §5.2.1, §5.2.3).
                .type(request.type() == Type.CON ? Type.ACK : Type.NON)
                .mid(request.type() == Type.CON ? request.mid() : (request.mid() + 1) & 0xFFFF);
        if (hello) {
            b.options().contentFormat(ContentFormat.TEXT_PLAIN);
            b.payload("hello");
        }
        return b.build();
    }
}
