package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.codec.MessageFormatException.Verdict;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hand-written malformed frames, each with the verdict RFC 8323 asks for and a fragment of the
 * reason: Abort (§5.6) for every format error, with Bad-CSM-Option for a refused CSM option;
 * Ignore for an Empty message with content (§3.4).
 */
class TcpMalformedFramesTest {

    private static final int MAX = 64;

    static Stream<Arguments> frames() {
        return Stream.of(
                // name, framing, hex, verdict, Bad-CSM-Option, reason fragment
                tcp("empty input", "", Verdict.ABORT, -1, "shorter than the 2-byte header"),
                tcp("one byte", "00", Verdict.ABORT, -1, "shorter than the 2-byte header"),
                tcp("Len 13 without its extended byte", "d0", Verdict.ABORT, -1, "shorter than the 2-byte header"),
                tcp("Len 13 without a code", "d001", Verdict.ABORT, -1, "ends inside its header"),
                tcp("Len 14 with one of two extended bytes", "e000", Verdict.ABORT, -1, "ends inside its header"),
                tcp("Len 15 with three of four extended bytes", "f0000000", Verdict.ABORT, -1, "ends inside its header"),
                tcp("announced length longer than the frame", "3045b1", Verdict.ABORT, -1, "announces 5 bytes, the frame has 3"),
                tcp("bytes after the announced length", "0045ff", Verdict.ABORT, -1, "announces 2 bytes, the frame has 3"),
                tcp("Len 14 beyond the maximum message size", "e1ffff4504", Verdict.ABORT, -1, "exceeds the maximum message size 64"),
                tcp("Len 15 at its largest", "f1ffffffff4504", Verdict.ABORT, -1, "message of 4295033107 bytes exceeds"),
                tcp("Len 13 one byte over the maximum", "d1300545" + "00".repeat(61), Verdict.ABORT, -1, "message of 65 bytes"),
                tcp("TKL 9", "0945" + "01".repeat(9), Verdict.ABORT, -1, "TKL 9 is reserved"),
                tcp("TKL 15", "0f45" + "01".repeat(15), Verdict.ABORT, -1, "TKL 15 is reserved"),
                tcp("option delta nibble 15", "114501f0", Verdict.ABORT, -1, "delta nibble 15"),
                tcp("option length nibble 15", "10450f", Verdict.ABORT, -1, "length nibble 15"),
                tcp("option value cut short", "2045b361", Verdict.ABORT, -1, "option 11 claims 3 bytes, only 1 follow"),
                tcp("extended delta cut short", "1045d0", Verdict.ABORT, -1, "option delta 13 needs 1 more byte"),
                tcp("extended length cut short", "20450e00", Verdict.ABORT, -1, "option length 14 needs 2 more bytes"),
                tcp("option number above 65535", "3045e0ffff", Verdict.ABORT, -1, "option number 65804 exceeds 65535"),
                tcp("payload marker without payload", "1045ff", Verdict.ABORT, -1, "payload marker followed by an empty payload"),
                tcp("reserved class 1", "0020", Verdict.ABORT, -1, "reserved class"),
                tcp("reserved class 6", "01c0aa", Verdict.ABORT, -1, "reserved class"),
                tcp("Empty message with a token", "0100aa", Verdict.IGNORE, -1, "Empty message (0.00) with 1 bytes"),
                tcp("Empty message with an option", "1000c0", Verdict.IGNORE, -1, "ignored (RFC 8323 3.4)"),
                tcp("Empty message with a payload", "2000ff01", Verdict.IGNORE, -1, "ignored (RFC 8323 3.4)"),
                tcp("signaling code 7.00", "00e0", Verdict.ABORT, -1, "unknown signaling code 7.00"),
                tcp("signaling code 7.06", "00e6", Verdict.ABORT, -1, "unknown signaling code 7.06"),
                tcp("signaling code 7.31", "00ff", Verdict.ABORT, -1, "unknown signaling code 7.31"),
                tcp("CSM with unknown critical option 5", "10e150", Verdict.ABORT, 5, "unknown critical option 5"),
                tcp("CSM with unknown critical option 65535", "30e1e0fef2", Verdict.ABORT, 65535, "unknown critical option 65535"),
                tcp("Ping with unknown critical option 3", "11e24230", Verdict.ABORT, -1, "unknown critical option 3 in 7.02 Ping"),
                tcp("Pong with unknown critical option 1", "11e34210", Verdict.ABORT, -1, "unknown critical option 1"),
                tcp("Release with unknown critical option 7", "10e470", Verdict.ABORT, -1, "unknown critical option 7"),
                tcp("Abort with unknown critical option 9", "10e590", Verdict.ABORT, -1, "unknown critical option 9"),
                tcp("CSM Max-Message-Size of 5 bytes", "60e1250102030405", Verdict.ABORT, 2, "Max-Message-Size of 5 bytes"),
                tcp("CSM Block-Wise-Transfer with a value", "20e14101", Verdict.ABORT, 4, "Block-Wise-Transfer of 1 bytes"),
                tcp("signal option error", "10e121", Verdict.ABORT, -1, "option 2 claims 1 bytes, only 0 follow"),
                ws("WebSocket Len 1", "1045c0", Verdict.ABORT, -1, "Len 1 in a WebSocket message, must be 0"),
                ws("WebSocket Len 13", "d00045", Verdict.ABORT, -1, "Len 13 in a WebSocket message"),
                ws("WebSocket one byte", "00", Verdict.ABORT, -1, "shorter than the 2-byte header"),
                ws("WebSocket token cut short", "0445aabb", Verdict.ABORT, -1, "TKL 4 but only 2 token bytes follow"),
                ws("WebSocket TKL 9", "0945" + "01".repeat(9), Verdict.ABORT, -1, "TKL 9 is reserved"),
                ws("WebSocket message over the maximum", "0045ff" + "00".repeat(62), Verdict.ABORT, -1, "message of 65 bytes"),
                ws("WebSocket payload marker without payload", "0045ff", Verdict.ABORT, -1, "payload marker"),
                ws("WebSocket Empty with a payload", "0000ff01", Verdict.IGNORE, -1, "ignored"),
                ws("WebSocket CSM with unknown critical option", "00e1d00c", Verdict.ABORT, 25, "unknown critical option 25"));
    }

    private static Arguments tcp(String name, String hex, Verdict verdict, int badCsm, String reason) {
        return Arguments.of(name, ReliableFraming.TCP, hex, verdict, badCsm, reason);
    }

    private static Arguments ws(String name, String hex, Verdict verdict, int badCsm, String reason) {
        return Arguments.of(name, ReliableFraming.WEBSOCKET, hex, verdict, badCsm, reason);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("frames")
    void refusedWithItsVerdict(String name, ReliableFraming framing, String frameHex, Verdict verdict, int badCsm,
            String reason) {
        TcpMessageParser parser = new TcpMessageParser(framing, MAX);
        byte[] frame = hex(frameHex);
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> parseEither(parser, frame), name);

        assertEquals(verdict, e.verdict(), e.toString());
        assertEquals(badCsm, e.badCsmOption(), "Bad-CSM-Option");
        assertTrue(e.reason().contains(reason), () -> "reason \"" + e.reason() + "\" lacks \"" + reason + "\"");
        assertEquals(-1, e.mid(), "no MID over reliable transports");
        assertNull(e.type(), "no type over reliable transports");
        if (verdict == Verdict.ABORT) {
            assertTrue(e.isAbort());
            SignalingMessage abort = e.abortSignal();
            assertSame(Code.ABORT, abort.code());
            assertEquals(e.diagnostic(), abort.diagnostic(), "the reason is the diagnostic payload");
            assertEquals(badCsm, abort.badCsmOption());
            assertTrue(abort.payloadLength() < 200, "a short diagnostic: " + abort.diagnostic());
        } else {
            assertNull(e.abortSignal(), "nothing to send for " + verdict);
        }
    }

    @Test
    void errorCarriesWhatWasReadable() {
        TcpMessageParser parser = new TcpMessageParser(ReliableFraming.TCP, MAX);
        MessageFormatException optionError = assertThrows(MessageFormatException.class,
                () -> parser.parseMessage(hex("2145aa0e00")));
        assertSame(Code.CONTENT, optionError.code());
        assertEquals(Token.fromHex("aa"), optionError.token());
        MessageFormatException csmError = assertThrows(MessageFormatException.class,
                () -> parser.parseSignal(hex("10e150")));
        assertSame(Code.CSM, csmError.code());
        assertEquals("MessageFormatException: unknown critical option 5 in 7.01 CSM (RFC 8323 5.2)"
                + " [abort, Bad-CSM-Option 5]", csmError.toString());
    }

    @Test
    void bufferRangeOutsideTheArrayIsAFormatError() {
        TcpMessageParser parser = new TcpMessageParser(ReliableFraming.TCP, MAX);
        byte[] frame = hex("01e242");
        assertEquals(Verdict.ABORT, assertThrows(MessageFormatException.class,
                () -> parser.parseMessage(frame, 2, 5, null, 0)).verdict());
        assertEquals(Verdict.ABORT, assertThrows(MessageFormatException.class,
                () -> parser.parseSignal(frame, -1, 2)).verdict());
    }

    @Test
    void askingForTheWrongKindIsAProgrammingError() {
        TcpMessageParser parser = new TcpMessageParser(ReliableFraming.TCP, MAX);
        assertThrows(IllegalArgumentException.class, () -> parser.parseMessage(hex("00e1")));
        assertThrows(IllegalArgumentException.class, () -> parser.parseSignal(hex("0045")));
    }

    @Test
    void udpErrorsKeepTheirVerdicts() {
        UdpMessageParser udp = new UdpMessageParser();
        MessageFormatException reject = assertThrows(MessageFormatException.class, () -> udp.parse(hex("49450001")));
        assertEquals(Verdict.REJECT, reject.verdict());
        assertNull(reject.abortSignal());
        MessageFormatException drop = assertThrows(MessageFormatException.class, () -> udp.parse(hex("80450001")));
        assertEquals(Verdict.SILENT_DROP, drop.verdict());
        assertTrue(drop.isSilentDrop());
        assertNotNull(drop.reason());
    }

    /** Parses as the endpoint would: by kind. */
    static Object parseEither(TcpMessageParser parser, byte[] frame) throws MessageFormatException {
        return parser.isSignaling(frame) ? parser.parseSignal(frame) : parser.parseMessage(frame);
    }
}
