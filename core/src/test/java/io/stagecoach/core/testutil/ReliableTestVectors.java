package io.stagecoach.core.testutil;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The RFC 8323 wire vectors (aiocoap-encoded), a copy of
 * {@code shared/test-vectors/coap-reliable-messages.json} in core's test resources. Long payloads
 * are stored compactly ({@code {"repeat": "79", "count": 267}}, and the wire as
 * {@code {"head": "...", "then_payload_bytes": 267}}); {@link Vector} expands them.
 */
public final class ReliableTestVectors {

    /** Classpath location of the copy. */
    public static final String RESOURCE = "/test-vectors/coap-reliable-messages.json";

    private ReliableTestVectors() {
    }

    /** One vector with its bytes expanded. */
    public static final class Vector {
        public final String name;
        /** "tcp" or "ws". */
        public final String framing;
        /** "c.dd" digits. */
        public final String code;
        public final String token;
        /** "number:hexvalue" per option, in wire order. */
        public final List<String> options;
        public final byte[] payload;
        public final byte[] wire;

        Vector(String name, String framing, String code, String token, List<String> options, byte[] payload,
                byte[] wire) {
            this.name = name;
            this.framing = framing;
            this.code = code;
            this.token = token;
            this.options = options;
            this.payload = payload;
            this.wire = wire;
        }

        /** E.g. "len-269-first-2byte/tcp". */
        @Override
        public String toString() {
            return name + "/" + framing;
        }
    }

    /** The raw file text. */
    public static String text() {
        try (InputStream in = ReliableTestVectors.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the test classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every vector, in file order. */
    @SuppressWarnings("unchecked")
    public static List<Vector> all() {
        List<Vector> out = new ArrayList<>();
        for (Object o : (List<Object>) Json.parseObject(text()).get("vectors")) {
            Map<String, Object> v = (Map<String, Object>) o;
            byte[] payload = bytes(v.get("payload"));
            Object wire = v.get("wire");
            byte[] wireBytes;
            if (wire instanceof String) {
                wireBytes = TestVectors.hex((String) wire);
            } else {
                Map<String, Object> w = (Map<String, Object>) wire;
                byte[] head = TestVectors.hex((String) w.get("head"));
                int n = ((Long) w.get("then_payload_bytes")).intValue();
                if (n != payload.length) {
                    throw new IllegalStateException(v.get("name") + ": then_payload_bytes " + n + " but payload "
                            + payload.length);
                }
                wireBytes = new byte[head.length + n];
                System.arraycopy(head, 0, wireBytes, 0, head.length);
                System.arraycopy(payload, 0, wireBytes, head.length, n);
            }
            List<String> options = new ArrayList<>();
            for (Object opt : (List<Object>) v.get("options")) {
                Map<String, Object> m = (Map<String, Object>) opt;
                options.add(m.get("number") + ":" + m.get("value"));
            }
            out.add(new Vector((String) v.get("name"), (String) v.get("framing"), (String) v.get("code"),
                    (String) v.get("token"), Collections.unmodifiableList(options), payload, wireBytes));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static byte[] bytes(Object field) {
        if (field instanceof String) {
            return TestVectors.hex((String) field);
        }
        Map<String, Object> m = (Map<String, Object>) field;
        byte b = TestVectors.hex((String) m.get("repeat"))[0];
        byte[] out = new byte[((Long) m.get("count")).intValue()];
        Arrays.fill(out, b);
        return out;
    }
}
