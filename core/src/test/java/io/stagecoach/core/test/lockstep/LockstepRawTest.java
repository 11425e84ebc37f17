package io.stagecoach.core.test.lockstep;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Type;
import org.junit.jupiter.api.Test;

/** Raw and deliberately invalid datagrams: sent as given, reported as malformed when received. */
class LockstepRawTest extends LockstepFixture {

    @Test
    void tooShortDatagramIsMalformed() {
        byte[] junk = {0x40, 0x01};
        client.send(junk, B);
        ReceivedDatagram raw = server.expectRaw();
        assertArrayEquals(junk, raw.bytes());
        assertTrue(raw.isMalformed());
        assertEquals("4001", raw.hex());

        client.send(junk, B);
        String msg = failureOf(() -> server.expect());
        assertTrue(msg.startsWith("server /10.0.0.2:5683 at +0.000ms expected a message, but received #2")
                && msg.contains("is malformed: ") && msg.contains("(bytes 4001)"), msg);
        assertTrue(server.consumed().get(1).toString().contains("malformed: "));
    }

    @Test
    void reservedTkl9IsReportedWithTheParsersReason() {
        // CON, TKL 9 (reserved, RFC 7252 §3), GET, MID 1, then 9 token bytes
        client.send(new byte[] {0x49, 0x01, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9}, B);
        ReceivedDatagram raw = server.expectRaw();
        assertEquals(1, raw.formatError().mid());
        String msg = failureOf(raw::message);
        assertTrue(msg.contains("malformed: " + raw.formatError().reason()), msg);
    }

    @Test
    void reservedCodeClassGoesOutAndIsRefusedByTheParser() {
        client.con().code(Code.of(1, 0)).mid(5).token("01").go();
        ReceivedDatagram raw = server.expectRaw();
        // header: CON TKL 1, code 1.00 (0x20), MID 5, token 01
        assertEquals("4120000501", raw.hex());
        assertTrue(raw.isMalformed());
        assertEquals(5, raw.formatError().mid());
    }

    @Test
    void invalidOptionsAreSentUnvalidated() {
        // Block2 with the reserved SZX 7 and Observe twice: both invalid, both kept (RFC 7252 §5.4.3, §5.4.5)
        client.con().get().mid(9).option(OptionNumber.BLOCK2, new byte[] {0x07}).observe(0).observe(1)
                .option(65000, new byte[] {1}).go();
        MessageExpectation e = server.expect().type(Type.CON).hasOption(OptionNumber.BLOCK2)
                .option(OptionNumber.BLOCK2, new byte[] {0x07})
                .matches(m -> m.options().invalidOptions().size() == 2, "two invalid options")
                .matches(m -> m.options().has(65000), "unregistered option 65000");
        String msg = failureOf(() -> e.block2(0, false, 6));
        assertTrue(msg.contains("but was no valid Block2"), msg);
    }

    @Test
    void emptyCodeWithTokenIsSentButMalformed() {
        // 0.00 with a token breaks RFC 7252 §4.1; the parser must refuse it
        client.con().mid(1).token("aa").go();
        assertTrue(server.expectRaw().isMalformed());
        client.con().mid(2).go();
        assertFalse(server.expectRaw().isMalformed());
    }
}
