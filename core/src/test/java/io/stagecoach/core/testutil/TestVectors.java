package io.stagecoach.core.testutil;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Loads the shared CoAP wire vectors from the test resources of core (also in core's test-jar). */
public final class TestVectors {

    /** Classpath location of the copy of {@code shared/test-vectors/coap-messages.json}. */
    public static final String RESOURCE = "/test-vectors/coap-messages.json";

    private TestVectors() {
    }

    /** The raw file text. */
    public static String text() {
        try (InputStream in = TestVectors.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the test classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The vectors of one section: "valid", "malformed" or "ignored". */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> section(String name) {
        Object v = Json.parseObject(text()).get(name);
        if (!(v instanceof List)) {
            throw new IllegalStateException("no section \"" + name + "\" in " + RESOURCE);
        }
        return (List<Map<String, Object>>) v;
    }

    /** Bytes of a hex string. */
    public static byte[] hex(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    /** Lower-case hex of bytes. */
    public static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xFF));
        }
        return sb.toString();
    }
}
