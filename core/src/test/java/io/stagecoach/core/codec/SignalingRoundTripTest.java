package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.codec.MessageFormatException.Verdict;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.SignalingOption;
import io.stagecoach.core.coap.Token;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every signal (RFC 8323 §5.3 to §5.6) with its options through serializer and parser in both
 * framings, and the §5.2 rules for options: numbers mean something per code, unknown elective
 * options are ignored, unknown critical ones abort.
 */
class SignalingRoundTripTest {

    static Stream<SignalingMessage> signals() {
        return Stream.of(
                SignalingMessage.csm(-1, false),
                SignalingMessage.csm(1152, false),
                SignalingMessage.csm(0, true),
                SignalingMessage.csm(SignalingMessage.MAX_MESSAGE_SIZE_LIMIT, true),
                SignalingMessage.ping(Token.EMPTY, false),
                SignalingMessage.ping(Token.fromHex("0102030405060708"), true),
                SignalingMessage.pong(Token.fromHex("42"), false),
                SignalingMessage.pongFor(SignalingMessage.ping(Token.fromHex("77"), true), true),
                SignalingMessage.release(List.of(), -1, null),
                SignalingMessage.release(List.of("[2001:db8::1]:5684", "example.org"), 0, "going away"),
                SignalingMessage.release(List.of("a".repeat(255)), 0xFF_FFFF, ""),
                SignalingMessage.abort(-1, null),
                SignalingMessage.abort(0, "Bad-CSM-Option 0"),
                SignalingMessage.abort(65535, "unknown critical option 65535 in 7.01 CSM (RFC 8323 5.2) \u2013 \u00fcber"));
    }

    @ParameterizedTest
    @EnumSource(ReliableFraming.class)
    void everySignalRoundTrips(ReliableFraming framing) throws MessageFormatException {
        TcpMessageSerializer serializer = new TcpMessageSerializer(framing);
        TcpMessageParser parser = new TcpMessageParser(framing, 4096);
        for (SignalingMessage s : (Iterable<SignalingMessage>) signals()::iterator) {
            byte[] frame = serializer.serialize(s);
            assertEquals(frame.length, serializer.encodedLength(s));
            assertTrue(parser.isSignaling(frame), s::toString);
            SignalingMessage back = parser.parseSignal(frame);
            assertEquals(s, back, s::toString);
            assertEquals(s.hashCode(), back.hashCode());
            assertArrayEquals(frame, serializer.serialize(back), "byte-exact: " + s);
            assertEquals(s.maxMessageSize(), back.maxMessageSize());
            assertEquals(s.blockWiseTransfer(), back.blockWiseTransfer());
            assertEquals(s.custody(), back.custody());
            assertEquals(s.alternativeAddresses(), back.alternativeAddresses());
            assertEquals(s.holdOff(), back.holdOff());
            assertEquals(s.badCsmOption(), back.badCsmOption());
            assertEquals(s.diagnostic(), back.diagnostic());
            assertTrue(back.unrecognizedOptions().isEmpty());
        }
    }

    @Test
    void factoriesWriteTheRfcExamplesAndVectors() {
        TcpMessageSerializer tcp = new TcpMessageSerializer(ReliableFraming.TCP);
        // RFC 8323 §5.7, Figures 11 and 12
        assertEquals("01e242", hex(tcp.serialize(SignalingMessage.ping(Token.fromHex("42"), false))));
        assertEquals("01e342", hex(tcp.serialize(SignalingMessage.pong(Token.fromHex("42"), false))));
        assertEquals("40e122048020", hex(tcp.serialize(SignalingMessage.csm(1152, true))));
        assertEquals("11e24320", hex(tcp.serialize(SignalingMessage.ping(Token.fromHex("43"), true))));
        assertEquals("a0e52104ff6261642043534d", hex(tcp.serialize(SignalingMessage.abort(4, "bad CSM"))));
        assertEquals("d010e42d0c636f61702b7463703a2f2f5b323030313a6462383a3a315d2f213c",
                hex(tcp.serialize(SignalingMessage.release(List.of("coap+tcp://[2001:db8::1]/"), 60, null))));
        assertEquals("00e1", hex(new TcpMessageSerializer(ReliableFraming.WEBSOCKET).serialize(SignalingMessage.csm(-1, false))));
    }

    /** Option 2 is four different options, by code (§5.2). */
    @Test
    void optionNumbersAreScopedByCode() throws MessageFormatException {
        TcpMessageParser parser = new TcpMessageParser(ReliableFraming.TCP, 1152);
        assertEquals(0x0102, parser.parseSignal(hex("30e1220102")).maxMessageSize(), "CSM: Max-Message-Size");
        assertTrue(parser.parseSignal(hex("10e220")).custody(), "Ping: Custody");
        assertTrue(parser.parseSignal(hex("10e320")).custody(), "Pong: Custody");
        assertEquals(List.of("h"), parser.parseSignal(hex("20e42168")).alternativeAddresses(), "Release: Alternative-Address");
        assertEquals(0x0102, parser.parseSignal(hex("30e5220102")).badCsmOption(), "Abort: Bad-CSM-Option");
        assertSame(SignalingOption.MAX_MESSAGE_SIZE, SignalingOption.find(Code.CSM, 2));
        assertSame(SignalingOption.CUSTODY, SignalingOption.find(Code.PONG, 2));
        assertSame(SignalingOption.HOLD_OFF, SignalingOption.find(Code.RELEASE, 4));
        assertNull(SignalingOption.find(Code.PING, 4));
        assertNull(SignalingOption.find(Code.ABORT, 4));
        // the same option in the wrong signal means nothing there
        SignalingMessage pingWithHoldOff = parser.parseSignal(hex("20e2413c"));
        assertEquals(-1, pingWithHoldOff.holdOff());
        assertEquals(1, pingWithHoldOff.unrecognizedOptions().size());
    }

    @Test
    void unknownElectiveOptionsAreIgnoredAndKept() throws MessageFormatException {
        for (ReliableFraming framing : ReliableFraming.values()) {
            TcpMessageSerializer serializer = new TcpMessageSerializer(framing);
            TcpMessageParser parser = new TcpMessageParser(framing, 1152);
            // each signal with its own options plus an unknown elective one (6, 10, 65534)
            List<SignalingMessage> signals = List.of(
                    withExtra(SignalingMessage.csm(2048, true), 6, "01"),
                    withExtra(SignalingMessage.ping(Token.fromHex("01"), true), 10, ""),
                    withExtra(SignalingMessage.pong(Token.fromHex("01"), true), 65534, "ffff"),
                    withExtra(SignalingMessage.release(List.of("x.example"), 30, "bye"), 6, "00"),
                    withExtra(SignalingMessage.abort(2, "no"), 8, "aa"));
            for (SignalingMessage s : signals) {
                byte[] frame = serializer.serialize(s);
                SignalingMessage back = parser.parseSignal(frame);
                assertEquals(s, back, "kept as received");
                assertArrayEquals(frame, serializer.serialize(back), "re-encodes byte for byte");
                assertEquals(1, back.unrecognizedOptions().size(), back::toString);
                assertFalse(SignalingOption.isCritical(back.unrecognizedOptions().get(0).number()));
            }
            SignalingMessage csm = parser.parseSignal(serializer.serialize(signals.get(0)));
            assertEquals(2048, csm.maxMessageSize());
            assertTrue(csm.blockWiseTransfer());
            SignalingMessage release = parser.parseSignal(serializer.serialize(signals.get(3)));
            assertEquals(List.of("x.example"), release.alternativeAddresses());
            assertEquals(30, release.holdOff());
            assertEquals("bye", release.diagnostic());
            assertEquals(2, parser.parseSignal(serializer.serialize(signals.get(4))).badCsmOption());
        }
    }

    @Test
    void unknownCriticalOptionsAbort() {
        for (ReliableFraming framing : ReliableFraming.values()) {
            TcpMessageSerializer serializer = new TcpMessageSerializer(framing);
            TcpMessageParser parser = new TcpMessageParser(framing, 1152);
            for (Code code : new Code[] {Code.CSM, Code.PING, Code.PONG, Code.RELEASE, Code.ABORT}) {
                for (int critical : new int[] {1, 3, 5, 65535}) {
                    SignalingMessage s = SignalingMessage.of(code, Token.EMPTY,
                            options(new int[] {critical}, new byte[][] {{}}), new byte[0]);
                    MessageFormatException e = assertThrows(MessageFormatException.class,
                            () -> parser.parseSignal(serializer.serialize(s)), s::toString);
                    assertEquals(Verdict.ABORT, e.verdict());
                    assertEquals(code == Code.CSM ? critical : -1, e.badCsmOption(),
                            "Bad-CSM-Option only for a CSM option (§5.6)");
                    assertEquals(e.badCsmOption(), e.abortSignal().badCsmOption());
                }
            }
        }
    }

    @Test
    void invalidCsmValuesAbortButElsewhereAreIgnored() throws MessageFormatException {
        TcpMessageParser parser = new TcpMessageParser(ReliableFraming.TCP, 1152);
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> parser.parseSignal(hex("60e1250102030405")));
        assertEquals(2, e.badCsmOption(), "an invalid CSM aborts (§3.3) naming the option (§5.6)");
        // Hold-Off of 4 bytes, Bad-CSM-Option of 3, an empty Alternative-Address: elective, ignored
        SignalingMessage release = parser.parseSignal(hex("60e4202401020304"));
        assertEquals(-1, release.holdOff());
        assertEquals(List.of(), release.alternativeAddresses());
        assertEquals(2, release.unrecognizedOptions().size());
        SignalingMessage abort = parser.parseSignal(hex("40e523010203"));
        assertEquals(-1, abort.badCsmOption());
        // a repeated Max-Message-Size: the first counts, the second is ignored (RFC 7252 §5.4.5)
        SignalingMessage twice = parser.parseSignal(hex("60e12204000202ff"));
        assertEquals(0x0400, twice.maxMessageSize());
        assertEquals(List.of(Option.of(2, new byte[] {0x02, (byte) 0xff})), twice.unrecognizedOptions());
    }

    @Test
    void factoriesRefuseValuesTheOptionsCannotHold() {
        assertThrows(IllegalArgumentException.class, () -> SignalingMessage.csm(1L << 32, false));
        assertThrows(IllegalArgumentException.class, () -> SignalingMessage.csm(-2, false));
        assertThrows(IllegalArgumentException.class, () -> SignalingMessage.release(List.of(""), -1, null));
        assertThrows(IllegalArgumentException.class, () -> SignalingMessage.release(List.of("a".repeat(256)), -1, null));
        assertThrows(IllegalArgumentException.class, () -> SignalingMessage.release(List.of(), 1 << 24, null));
        assertThrows(IllegalArgumentException.class, () -> SignalingMessage.abort(65536, null));
        assertThrows(IllegalArgumentException.class, () -> SignalingMessage.pongFor(SignalingMessage.csm(-1, false), false));
        assertThrows(IllegalArgumentException.class,
                () -> SignalingMessage.of(Code.CONTENT, Token.EMPTY, OptionSet.EMPTY, new byte[0]));
    }

    @Test
    void toStringNamesOptionsByCode() {
        assertEquals("7.01 CSM token=[] [Max-Message-Size=1152, Block-Wise-Transfer]",
                SignalingMessage.csm(1152, true).toString());
        assertEquals("7.02 Ping token=42 [Custody]", SignalingMessage.ping(Token.fromHex("42"), true).toString());
        assertEquals("7.04 Release token=[] [Alternative-Address=\"h:1\", Hold-Off=5] diagnostic=\"bye\"",
                SignalingMessage.release(List.of("h:1"), 5, "bye").toString());
        assertEquals("7.05 Abort token=[] [Bad-CSM-Option=9, Option6=0x01]",
                withExtra(SignalingMessage.abort(9, null), 6, "01").toString());
    }

    /** {@code s} with one more option, unchecked. */
    static SignalingMessage withExtra(SignalingMessage s, int number, String hexValue) {
        OptionSet o = s.options();
        int[] numbers = new int[o.size() + 1];
        byte[][] values = new byte[o.size() + 1][];
        int j = 0;
        boolean added = false;
        for (int i = 0; i < o.size(); i++) {
            if (!added && o.number(i) > number) {
                numbers[j] = number;
                values[j++] = hex(hexValue);
                added = true;
            }
            numbers[j] = o.number(i);
            values[j] = new byte[o.valueLength(i)];
            o.copyValue(i, values[j++], 0);
        }
        if (!added) {
            numbers[j] = number;
            values[j] = hex(hexValue);
        }
        return SignalingMessage.of(s.code(), s.token(), options(numbers, values), s.payload());
    }

    static OptionSet options(int[] numbers, byte[][] values) {
        int total = 0;
        for (byte[] v : values) {
            total += v.length;
        }
        byte[] data = new byte[total];
        int[] index = new int[3 * numbers.length];
        int pos = 0;
        for (int i = 0; i < numbers.length; i++) {
            System.arraycopy(values[i], 0, data, pos, values[i].length);
            index[3 * i] = numbers[i];
            index[3 * i + 1] = pos;
            index[3 * i + 2] = values[i].length;
            pos += values[i].length;
        }
        return OptionSet.fromWire(data, index, numbers.length);
    }
}
