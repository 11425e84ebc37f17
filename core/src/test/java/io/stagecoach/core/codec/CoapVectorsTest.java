package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.testutil.TestVectors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The shared wire vectors (aiocoap-generated): byte-exact decoding and encoding. */
class CoapVectorsTest {

    private final UdpMessageParser parser = new UdpMessageParser();
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();

    static Stream<Arguments> valid() {
        return cases("valid");
    }

    static Stream<Arguments> malformed() {
        return cases("malformed");
    }

    static Stream<Arguments> ignored() {
        return cases("ignored");
    }

    private static Stream<Arguments> cases(String section) {
        return TestVectors.section(section).stream().map(v -> Arguments.of(v.get("name"), v));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void validVectorDecodesToItsFields(String name, Map<String, Object> v) throws MessageFormatException {
        Message m = parser.parse(hex((String) v.get("hex")));

        assertEquals(v.get("type"), m.type().name(), "type");
        assertEquals(v.get("code"), m.code().toDigits(), "code");
        assertEquals(((Long) v.get("mid")).intValue(), m.mid(), "mid");
        assertEquals(v.get("token"), m.token().toHex(), "token");
        assertEquals(expectedOptions(v), actualOptions(m), "options in wire order");
        assertEquals(v.get("payload"), hex(m.payload()), "payload");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void validVectorReencodesToItsBytes(String name, Map<String, Object> v) throws MessageFormatException {
        byte[] wire = hex((String) v.get("hex"));
        Message m = parser.parse(wire);

        assertEquals(v.get("hex"), hex(serializer.serialize(m)), "re-encoded bytes");
        byte[] buf = new byte[wire.length + 7];
        assertEquals(wire.length, serializer.serialize(m, buf, 3), "bytes written into buffer");
        assertArrayEquals(wire, java.util.Arrays.copyOfRange(buf, 3, 3 + wire.length));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void malformedVectorIsAFormatError(String name, Map<String, Object> v) {
        byte[] wire = hex((String) v.get("hex"));
        MessageFormatException e = assertThrows(MessageFormatException.class, () -> parser.parse(wire),
                "expected a format error for " + v.get("hex") + " (" + v.get("reason") + ")");

        assertNotNull(e.reason());
        assertFalse(e.reason().isBlank(), "reason text");
        assertFalse(e.isSilentDrop(), "a format error is answered (CON) or ignored (NON), not silently dropped");
        if (wire.length >= 4) {
            assertEquals((wire[2] & 0xFF) << 8 | (wire[3] & 0xFF), e.mid(), "MID of a readable header");
            assertNotNull(e.type(), "type of a readable header");
        } else {
            assertEquals(-1, e.mid(), "no MID without a full header");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ignored")
    void ignoredVectorIsASilentDrop(String name, Map<String, Object> v) {
        MessageFormatException e = assertThrows(MessageFormatException.class,
                () -> parser.parse(hex((String) v.get("hex"))));

        assertTrue(e.isSilentDrop(), "version != 1 must be dropped silently: " + e);
    }

    @Test
    void everySectionHasVectors() {
        assertTrue(TestVectors.section("valid").size() >= 30);
        assertTrue(TestVectors.section("malformed").size() >= 10);
        assertEquals(1, TestVectors.section("ignored").size());
    }

    /**
     * The copy in core's test resources must equal {@code shared/test-vectors} when the shared
     * directory is beside the checkout (it is in the project layout and in CI).
     */
    @Test
    void resourceCopyEqualsSharedFile() throws IOException {
        Path shared = Path.of("..", "..", "shared", "test-vectors", "coap-messages.json");
        String copy = TestVectors.text();
        if (Files.exists(shared)) {
            assertEquals(Files.readString(shared), copy,
                    "core/src/test/resources/test-vectors/coap-messages.json is out of date; copy it from " + shared);
        } else {
            // without ../shared the copy must at least be the complete vector file
            assertTrue(copy.contains("\"malformed\"") && copy.contains("\"ignored\""));
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> expectedOptions(Map<String, Object> v) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<Object>) v.get("options")) {
            Map<String, Object> opt = (Map<String, Object>) o;
            out.add(opt.get("number") + ":" + opt.get("value"));
        }
        return out;
    }

    private static List<String> actualOptions(Message m) {
        List<String> out = new ArrayList<>();
        for (Option o : m.options()) {
            out.add(o.number() + ":" + o.hex());
        }
        return out;
    }
}
