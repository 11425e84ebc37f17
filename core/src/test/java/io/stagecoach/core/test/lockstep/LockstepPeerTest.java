package io.stagecoach.core.test.lockstep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Type;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** Sends every message kind from one lockstep peer to another and checks each expectation both ways. */
class LockstepPeerTest extends LockstepFixture {

    @Test
    void conGetIsSentWithTheRealSerializerAndEveryCheckPassesOrFails() {
        client.con().get().mid(0x1234).token("0a0b").path("test").to(B).go();
        // header 0x42 (ver 1, CON, TKL 2), 0.01, MID 0x1234, token, Uri-Path(11) "test" (delta 11, len 4)
        ReceivedDatagram raw = server.expectRaw();
        assertEquals("420112340a0bb474657374", raw.hex());
        assertEquals(A, raw.source());

        client.con().get().mid(0x1234).token("0a0b").path("test").go();
        MessageExpectation e = server.expect().type(Type.CON).code(Code.GET).mid(0x1234).token("0a0b")
                .path("test").option(OptionNumber.URI_PATH, "test").noPayload().from(A)
                .noOption(OptionNumber.OBSERVE);

        assertTrue(failureOf(() -> e.type(Type.NON)).contains("expected type NON, but was CON"));
        assertTrue(failureOf(() -> e.code(Code.POST)).contains("expected code 0.02 POST, but was 0.01 GET"));
        assertTrue(failureOf(() -> e.mid(0x1235)).contains("expected mid 4661 (0x1235), but was 4660 (0x1234)"));
        assertTrue(failureOf(() -> e.token("0a0c")).contains("expected token 0a0c, but was 0a0b"));
        assertTrue(failureOf(() -> e.token("")).contains("expected token (empty), but was 0a0b"));
        assertTrue(failureOf(() -> e.path("other")).contains("expected Uri-Path \"other\", but was \"test\""));
        assertTrue(failureOf(() -> e.payload("x")).contains("expected payload \"x\", but was \"\""));
        assertTrue(failureOf(() -> e.from(B)).contains("expected sender " + B));
        assertTrue(failureOf(() -> e.hasOption(OptionNumber.OBSERVE)).contains("expected Observe present, but was absent"));
        assertTrue(failureOf(() -> e.noOption(OptionNumber.URI_PATH)).contains("expected no Uri-Path"));
        // every failure names the peer, the received message and its time
        String any = failureOf(() -> e.rst());
        assertTrue(any.startsWith("server /10.0.0.2:5683 at +0.000ms received #2 at +0.000ms from /10.0.0.1:5683: CON 0.01 GET"),
                any);
    }

    @Test
    void nonPostWithOptionsAndPayload() {
        client.non().post().mid(7).token("01").path("/a/b").query("x=1").contentFormat(ContentFormat.TEXT_PLAIN)
                .accept(ContentFormat.JSON).block1(2, true, 6).payload("hello").go();
        MessageExpectation e = server.expect().type(Type.NON).code(Code.POST).mid(7).token("01").path("a/b")
                .option(OptionNumber.URI_QUERY, "x=1").contentFormat(ContentFormat.TEXT_PLAIN).optionUint(OptionNumber.ACCEPT, 50)
                .block1(2, true, 6).payload("hello").payload("hello".getBytes()).payloadLength(5);

        assertTrue(failureOf(() -> e.payload("hellO")).contains("expected payload \"hellO\", but was \"hello\""));
        assertTrue(failureOf(() -> e.block1(2, false, 6)).contains("expected Block1 2/-/1024, but was 2/M/1024"));
        assertTrue(failureOf(() -> e.block2(0, false, 6)).contains("expected Block2 0/-/1024, but was no valid Block2"));
        assertTrue(failureOf(() -> e.contentFormat(ContentFormat.JSON)).contains("expected Content-Format 50, but was 0"));
        assertTrue(failureOf(() -> e.optionUint(OptionNumber.ACCEPT, 0)).contains("expected Accept=0"));
        assertTrue(failureOf(() -> e.noPayload()).contains("expected no payload, but was 5 bytes"));
    }

    @Test
    void piggybackedResponseInAnAck() {
        server.ack(0x1234).response(Code.CONTENT).token("0a0b").contentFormat(ContentFormat.TEXT_PLAIN).observe(5).block2(1, false, 2)
                .maxAge(30).etag("cafe").payload("hi").go();
        MessageExpectation e = client.expect().type(Type.ACK).code(Code.CONTENT).mid(0x1234).token("0a0b")
                .observe(5).block2(1, false, 2).optionUint(OptionNumber.MAX_AGE, 30)
                .option(OptionNumber.ETAG, new byte[] {(byte) 0xca, (byte) 0xfe}).payload("hi");

        assertTrue(failureOf(() -> e.emptyAck()).contains("expected code 0.00 Empty, but was 2.05 Content"));
        assertTrue(failureOf(() -> e.observe(6)).contains("expected Observe 6, but was 5"));
        assertTrue(failureOf(() -> e.block2(1, false, 3)).contains("expected Block2 1/-/128, but was 1/-/64"));
    }

    @Test
    void separateConResponseNeedsEmptyAck() {
        server.con().response(Code.CHANGED).mid(99).token("aa").go();
        client.expect().type(Type.CON).code(Code.CHANGED).mid(99).token("aa");
        client.ack(99).go();
        server.expect().emptyAck(99).emptyAck().token("").noPayload();
        assertTrue(failureOf(() -> client.expect()).contains("received so far:\n    #1 at +0.000ms from /10.0.0.2:5683: CON 2.04 Changed mid=99"));
    }

    @Test
    void emptyMessagesRstAndPing() {
        client.ping(3).go();
        server.expect().type(Type.CON).code(Code.EMPTY).mid(3).token("");
        server.rst(3).go();
        MessageExpectation e = client.expect().rst(3).rst();
        assertTrue(failureOf(() -> e.emptyAck()).contains("expected type ACK, but was RST"));
        assertTrue(failureOf(() -> e.rst(4)).contains("expected mid 4 (0x4), but was 3 (0x3)"));
    }

    @Test
    void expectNothingAndExpectFailListWhatArrived() {
        String none = failureOf(() -> server.expect());
        assertTrue(none.contains("expected a message, but none arrived; nothing received so far"), none);

        client.non().get().mid(1).go();
        client.non().get().mid(2).go();
        String extra = failureOf(() -> server.expectNothing());
        assertTrue(extra.contains("expected nothing, but received:\n    #1 at +0.000ms from /10.0.0.1:5683: NON 0.01 GET mid=1")
                && extra.contains("\n    #2 "), extra);
        server.expect().mid(1).and().expect().mid(2).and().expectNothing();
        assertEquals(2, server.consumed().size());
    }

    @Test
    void customPredicateIsNamedInTheFailure() {
        client.non().get().mid(1).path("x").go();
        MessageExpectation e = server.expect().matches(m -> m.options().size() == 1, "one option");
        assertTrue(failureOf(() -> e.matches(m -> m.options().isEmpty(), "no options")).contains("expected no options"));
    }

    @Test
    void builderRefusesMissingMidAndDestination() {
        assertTrue(assertThrows(IllegalStateException.class, () -> client.con().get().go()).getMessage()
                .contains("MID not set"));
        VirtualClock c = new VirtualClock();
        try (LockstepPeer lone = LockstepPeer.attach(new SimulatedNetwork(c, 1), A, c)) {
            assertTrue(assertThrows(IllegalStateException.class, () -> lone.con().get().mid(1).go()).getMessage()
                    .contains("no destination"));
        }
        assertThrows(IllegalArgumentException.class,
                () -> LockstepPeer.attach(net, new InetSocketAddress("10.0.0.3", 1), new VirtualClock()));
    }

    @Test
    void closeDetaches() {
        client.close();
        server.non().get().mid(1).go();
        clock.runDue();
        assertEquals(1, net.undeliverable());
        assertThrows(IllegalStateException.class, () -> client.non().get().mid(1).go());
        // the address is free again
        try (LockstepPeer again = LockstepPeer.attach(net, A, clock)) {
            server.non().get().mid(2).go();
            again.expect().mid(2);
        }
    }
}
