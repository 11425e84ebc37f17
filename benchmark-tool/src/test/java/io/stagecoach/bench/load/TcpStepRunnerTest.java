package io.stagecoach.bench.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.load.EventPacedClock.Window;
import io.stagecoach.bench.load.TcpScriptedPeer.Connection;
import io.stagecoach.bench.load.TcpScriptedPeer.Frame;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The generator over {@code coap+tcp} (RFC 8323) against an in-process peer on loopback, the
 * step's phases on an {@link EventPacedClock} as in {@link StepRunnerTest}.
 */
@Timeout(60)
class TcpStepRunnerTest {

    private static final Duration NEVER = Duration.ofSeconds(30);

    private static LoadSpec spec(int port, Duration duration) {
        return LoadSpec.defaults(CoapUri.parse("coap+tcp://127.0.0.1:" + port + "/benchmark"))
                .withTimeout(NEVER)
                .withTimes(Duration.ZERO, duration, Duration.ZERO)
                .withLoops(2);
    }

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void eachClientHasAConnectionThatStartsWithItsCsmAndGetsEveryAnswer() throws Exception {
        try (TcpScriptedPeer peer = TcpScriptedPeer.start(TcpScriptedPeer.ECHO)) {
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.atLeast(200, "requests", peer::requests));
            StepResult r = new StepRunner(spec(peer.address().getPort(), Duration.ofSeconds(1)), peer.address(), clock)
                    .run(6, StepListener.NONE);

            assertEquals(6, r.concurrency());
            // 200 requests reached the peer in the window; each client's first may have been
            // answered before it, and at most one per client was unanswered at its end.
            assertTrue(r.completed() >= 200 - 2 * 6, "2.05 answers counted in the window: " + r.completed());
            assertEquals(0, r.errors());
            assertEquals(0, r.timeouts());
            assertEquals(r.completed(), r.latencyUs().getTotalCount());
            // the step closed its 6 connections; what they sent may still be in this peer's buffers
            peer.awaitReadersDone(6);
            List<Connection> connections = peer.connections();
            assertEquals(6, connections.size(), "one connection per client");
            for (Connection c : connections) {
                assertEquals(TcpScriptedPeer.CSM, c.frames.get(0).code(), "the CSM comes first (RFC 8323 5.3.1)");
                List<Frame> requests = c.frames.subList(1, c.frames.size());
                assertTrue(requests.size() >= 1);
                for (Frame f : requests) {
                    assertEquals(1, f.code(), "GET");
                    assertEquals(RequestTemplate.TOKEN_LENGTH, f.token().length);
                }
            }
        }
    }

    @Test
    void aPingIsAnsweredWithAPongOfTheSameToken() throws Exception {
        byte[] pingToken = {0x5A, 0x17};
        TcpScriptedPeer.Script pinging = new TcpScriptedPeer.Script() {
            @Override
            public byte[] greeting() {
                return TcpScriptedPeer.concat(TcpScriptedPeer.frame(TcpScriptedPeer.CSM, new byte[0]),
                        TcpScriptedPeer.frame(TcpScriptedPeer.PING, pingToken));
            }

            @Override
            public byte[] answer(Frame request, int index) {
                return TcpScriptedPeer.ECHO.answer(request, index);
            }
        };
        try (TcpScriptedPeer peer = TcpScriptedPeer.start(pinging)) {
            EventPacedClock clock = EventPacedClock.onEvents(() -> Window.atLeast(40, "requests", peer::requests));
            StepResult r = new StepRunner(spec(peer.address().getPort(), Duration.ofSeconds(1)), peer.address(), clock)
                    .run(3, StepListener.NONE);

            assertTrue(r.completed() > 0);
            peer.awaitReadersDone(3); // the Pongs may still be in this peer's buffers
            for (Connection c : peer.connections()) {
                List<Frame> pongs = c.frames.stream().filter(f -> f.code() == TcpScriptedPeer.PONG).toList();
                assertEquals(1, pongs.size(), "one Pong per Ping (RFC 8323 5.4): " + c.frames.size() + " frames");
                assertArrayEquals(pingToken, pongs.get(0).token());
            }
        }
    }

    @Test
    void aReleaseEndsTheClientItsOpenRequestIsAnError() throws Exception {
        // The first answer comes with a Release in the same write: the client answers the 2.05 with
        // its next request, then reads the Release, counts that request as an error and closes.
        TcpScriptedPeer.Script releasing = new TcpScriptedPeer.Script() {
            @Override
            public byte[] greeting() {
                return TcpScriptedPeer.ECHO.greeting();
            }

            @Override
            public byte[] answer(Frame request, int index) {
                return index == 1 ? TcpScriptedPeer.concat(TcpScriptedPeer.ECHO.answer(request, index),
                        TcpScriptedPeer.frame(TcpScriptedPeer.RELEASE, new byte[0])) : null;
            }
        };
        try (TcpScriptedPeer peer = TcpScriptedPeer.start(releasing)) {
            EventPacedClock clock = EventPacedClock.onEvents(
                    () -> Window.of("4 connections closed by their clients", () -> peer.ended() >= 4));
            StepResult r = new StepRunner(spec(peer.address().getPort(), Duration.ofSeconds(1)), peer.address(), clock)
                    .run(4, StepListener.NONE);

            for (Connection c : peer.connections()) {
                assertTrue(c.ended, "the client closed the released connection");
                assertEquals(2, c.requests(), "nothing sent after the Release was read");
            }
            // Each client's second request ended with its connection, in the window or before it began.
            assertTrue(r.errors() <= 4, "errors " + r.errors());
            assertTrue(r.completed() <= 4, "one answer per connection at most: " + r.completed());
            assertEquals(0, r.timeouts());
        }
    }

    @Test
    void coapTcpHasNoNonRequestsNoRetransmissionAndOnlyThePlainScheme() {
        CoapUri tcp = CoapUri.parse("coap+tcp://127.0.0.1:5683/benchmark");
        LoadSpec s = LoadSpec.defaults(tcp);
        assertThrows(IllegalArgumentException.class, () -> s.withRequest("GET", 0, false));
        assertThrows(IllegalArgumentException.class, () -> s.withRetransmit(Duration.ofSeconds(2)));
        assertThrows(IllegalArgumentException.class,
                () -> LoadSpec.defaults(CoapUri.parse("coap+ws://127.0.0.1:5683/benchmark")));
    }

    @Test
    void theTcpTemplateIsOneFrameWithTheTokenAfterLengthAndCode() {
        RequestTemplate t = RequestTemplate.of(LoadSpec.defaults(CoapUri.parse("coap+tcp://127.0.0.1/benchmark")));
        byte[] b = t.bytes();
        assertEquals(2, t.tokenOffset());
        // Len = Uri-Path option (1 + 9 bytes), TKL 4, GET, token, option delta 11 length 9
        assertEquals(10 << 4 | 4, b[0] & 0xFF);
        assertEquals(1, b[1]);
        assertEquals(0xB9, b[6] & 0xFF);
        assertEquals(2 + 4 + 10, b.length);
        java.nio.ByteBuffer dst = java.nio.ByteBuffer.allocate(64);
        dst.put((byte) 0x00).put((byte) 0xE1);
        t.appendFrame(dst, 0x01020304);
        assertEquals(2 + b.length, dst.position());
        assertEquals(0x01020304, dst.getInt(2 + 2));
    }
}
