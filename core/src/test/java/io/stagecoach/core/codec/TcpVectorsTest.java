package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.testutil.ReliableTestVectors;
import io.stagecoach.core.testutil.ReliableTestVectors.Vector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shared RFC 8323 vectors (aiocoap 0.4.17): each parses to its fields and re-encodes to its
 * bytes, and the fields alone encode to the bytes, in both framings; the TCP frames, streamed
 * back to back, come out of {@link TcpFrameSplitter} unchanged. The file has no malformed
 * section; the malformed frames are {@link TcpMalformedFramesTest}'s.
 */
class TcpVectorsTest {

    /** Large enough for the 65805-byte vectors. */
    private static final int MAX = 1 << 17;

    static List<Vector> vectors() {
        return ReliableTestVectors.all();
    }

    static TcpMessageParser parser(Vector v) {
        return new TcpMessageParser(framing(v), MAX);
    }

    static ReliableFraming framing(Vector v) {
        return v.framing.equals("tcp") ? ReliableFraming.TCP : ReliableFraming.WEBSOCKET;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void vectorDecodesToItsFields(Vector v) throws MessageFormatException {
        TcpMessageParser parser = parser(v);
        boolean signal = v.code.startsWith("7.");
        assertEquals(signal, parser.isSignaling(v.wire), "isSignaling");
        Code code;
        Token token;
        OptionSet options;
        byte[] payload;
        if (signal) {
            SignalingMessage s = parser.parseSignal(v.wire);
            code = s.code();
            token = s.token();
            options = s.options();
            payload = s.payload();
            assertTrue(s.unrecognizedOptions().isEmpty(), "every vector option is defined: " + s);
        } else {
            Message m = parser.parseMessage(v.wire);
            assertNull(m.type(), "no type over reliable transports");
            assertEquals(-1, m.mid(), "no MID over reliable transports");
            code = m.code();
            token = m.token();
            options = m.options();
            payload = m.payload();
        }
        assertEquals(v.code, code.toDigits(), "code");
        assertEquals(v.token, token.toHex(), "token");
        assertEquals(v.options, options(options), "options in wire order");
        assertArrayEquals(v.payload, payload, "payload");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void vectorReencodesToItsBytes(Vector v) throws MessageFormatException {
        TcpMessageParser parser = parser(v);
        TcpMessageSerializer serializer = new TcpMessageSerializer(framing(v));
        byte[] again;
        byte[] buf = new byte[v.wire.length + 7];
        int written;
        if (parser.isSignaling(v.wire)) {
            SignalingMessage s = parser.parseSignal(v.wire);
            again = serializer.serialize(s);
            written = serializer.serialize(s, buf, 3);
            assertEquals(s, parser.parseSignal(again));
        } else {
            Message m = parser.parseMessage(v.wire);
            again = serializer.serialize(m);
            written = serializer.serialize(m, buf, 3);
            assertEquals(m, parser.parseMessage(again));
            assertEquals(m, parser.parseMessageShared(v.wire.clone(), null, 0), "shared parse");
        }
        assertArrayEquals(v.wire, again, "re-encoded bytes");
        assertEquals(v.wire.length, written, "bytes written into buffer");
        assertArrayEquals(v.wire, Arrays.copyOfRange(buf, 3, 3 + v.wire.length));
    }

    /** Encoding from the vector's fields alone, without the parser in the loop. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void fieldsEncodeToTheBytes(Vector v) {
        TcpMessageSerializer serializer = new TcpMessageSerializer(framing(v));
        Code code = Code.valueOf(Integer.parseInt(v.code.substring(0, 1)) << 5 | Integer.parseInt(v.code.substring(2)));
        Token token = Token.fromHex(v.token);
        OptionSet options = optionSet(v.options);
        byte[] wire;
        if (code.isSignaling()) {
            wire = serializer.serialize(SignalingMessage.of(code, token, options, v.payload));
        } else if (code.isRequest()) {
            wire = serializer.serialize(Request.builder(code).token(token).options(options).payload(v.payload).build());
        } else {
            wire = serializer.serialize(Response.builder(code).token(token).options(options).payload(v.payload).build());
        }
        assertEquals(hex(v.wire), hex(wire));
    }

    @Test
    void signalVectorsReadThroughTheTypedAccessors() throws MessageFormatException {
        Map<String, SignalingMessage> s = new TreeMap<>();
        for (Vector v : vectors()) {
            if (v.code.startsWith("7.")) {
                s.put(v.name + "/" + v.framing, parser(v).parseSignal(v.wire));
            }
        }
        for (String f : new String[] {"tcp", "ws"}) {
            SignalingMessage csm = s.get("csm-max-size-bert/" + f);
            assertEquals(1152, csm.maxMessageSize());
            assertTrue(csm.blockWiseTransfer());
            SignalingMessage empty = s.get("csm-empty/" + f);
            assertEquals(-1, empty.maxMessageSize(), "absent: the base value or an earlier CSM's applies");
            assertFalse(empty.blockWiseTransfer());
            assertTrue(s.get("ping-custody/" + f).custody());
            assertFalse(s.get("ping/" + f).custody());
            assertEquals(Token.fromHex("42"), s.get("pong/" + f).token());
            SignalingMessage release = s.get("release-alt-address/" + f);
            assertEquals(List.of("coap+tcp://[2001:db8::1]/"), release.alternativeAddresses());
            assertEquals(60, release.holdOff());
            SignalingMessage abort = s.get("abort-bad-csm/" + f);
            assertEquals(4, abort.badCsmOption());
            assertEquals("bad CSM", abort.diagnostic());
        }
    }

    /** The TCP vectors back to back in one stream, cut in chunks of several sizes. */
    @Test
    void tcpVectorsStreamedThroughTheSplitter() throws MessageFormatException {
        List<byte[]> frames = vectors().stream().filter(v -> v.framing.equals("tcp")).map(v -> v.wire)
                .collect(Collectors.toList());
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        frames.forEach(stream::writeBytes);
        byte[] bytes = stream.toByteArray();
        for (int chunk : new int[] {1, 2, 3, 5, 7, 64, 1000, 65536, bytes.length}) {
            TcpFrameSplitter splitter = new TcpFrameSplitter(MAX);
            List<byte[]> out = new ArrayList<>();
            for (int off = 0; off < bytes.length; off += chunk) {
                int end = Math.min(bytes.length, off + chunk);
                for (int pos = off; pos < end; ) {
                    byte[] f = splitter.next(bytes, pos, end - pos);
                    pos += splitter.consumed();
                    if (f != null) {
                        out.add(f);
                    }
                }
            }
            assertEquals(frames.size(), out.size(), "frames with chunks of " + chunk);
            for (int i = 0; i < frames.size(); i++) {
                assertArrayEquals(frames.get(i), out.get(i), "frame " + i + " with chunks of " + chunk);
            }
            assertTrue(splitter.isIdle());
        }
    }

    @Test
    void fileHasEveryFramingAndSignal() {
        List<Vector> all = vectors();
        assertEquals(38, all.size());
        assertEquals(19, all.stream().filter(v -> v.framing.equals("tcp")).count());
        for (String code : new String[] {"7.01", "7.02", "7.03", "7.04", "7.05"}) {
            assertTrue(all.stream().anyMatch(v -> v.code.equals(code)), code);
        }
    }

    /** As for the UDP vectors: the resource copy must equal {@code shared/test-vectors} when it is there. */
    @Test
    void resourceCopyEqualsSharedFile() throws IOException {
        Path shared = Path.of("..", "..", "shared", "test-vectors", "coap-reliable-messages.json");
        String copy = ReliableTestVectors.text();
        if (Files.exists(shared)) {
            assertEquals(Files.readString(shared), copy,
                    "core/src/test/resources/test-vectors/coap-reliable-messages.json is out of date; copy it from "
                            + shared);
        } else {
            assertTrue(copy.contains("\"vectors\""));
        }
    }

    static List<String> options(OptionSet options) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < options.size(); i++) {
            byte[] value = new byte[options.valueLength(i)];
            options.copyValue(i, value, 0);
            out.add(options.number(i) + ":" + hex(value));
        }
        return out;
    }

    /** "number:hex" options to a set, unvalidated (signaling numbers are not request options). */
    static OptionSet optionSet(List<String> options) {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        int[] index = new int[3 * options.size()];
        for (int i = 0; i < options.size(); i++) {
            String[] nv = options.get(i).split(":", -1);
            byte[] value = io.stagecoach.core.testutil.TestVectors.hex(nv[1]);
            index[3 * i] = Integer.parseInt(nv[0]);
            index[3 * i + 1] = data.size();
            index[3 * i + 2] = value.length;
            data.writeBytes(value);
        }
        return OptionSet.fromWire(data.toByteArray(), index, options.size());
    }
}
