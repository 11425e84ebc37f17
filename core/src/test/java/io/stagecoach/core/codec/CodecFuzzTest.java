package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.testutil.Mutations;
import io.stagecoach.core.testutil.TestVectors;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Property test over 1,000,000 deterministic inputs: random byte arrays and mutations of the
 * shared vectors (bit flips, truncation, insertion, random overwrite). Parsing throws nothing but
 * {@link MessageFormatException}; whatever parses re-encodes to the same bytes and re-parses to an
 * equal message.
 */
class CodecFuzzTest {

    private static final int ITERATIONS = 1_000_000;
    private static final long SEED = 0x5EEDC0A9L;

    private final UdpMessageParser parser = new UdpMessageParser();
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();

    @Test
    void parserNeverCrashesAndRoundTrips() {
        List<byte[]> seeds = TestVectors.section("valid").stream()
                .map(v -> hex((String) v.get("hex"))).collect(Collectors.toList());
        SplittableRandom rnd = new SplittableRandom(SEED);
        int parsed = 0;
        int refused = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] input = nextInput(rnd, seeds);
            Message m;
            try {
                m = parser.parse(input);
            } catch (MessageFormatException e) {
                refused++;
                assertSharedParseRefuses(input, e);
                continue;
            } catch (RuntimeException e) {
                fail("parse(" + TestVectors.hex(input) + ") threw " + e, e);
                return;
            }
            parsed++;
            try {
                Message shared = parser.parseShared(input.clone(), null, 0);
                assertEquals(m, shared, () -> "parseShared of " + TestVectors.hex(input));
            } catch (MessageFormatException e) {
                fail("parseShared(" + TestVectors.hex(input) + ") refused what parse took: " + e.reason());
            }
            byte[] again = serializer.serialize(m);
            // the option encoding is canonical (each delta/length has exactly one form), so the
            // bytes come back unchanged, not merely an equivalent message
            assertArrayEquals(input, again, () -> "re-encoding of " + TestVectors.hex(input));
            try {
                assertEquals(m, parser.parse(again), () -> "re-parse of " + TestVectors.hex(again));
            } catch (MessageFormatException e) {
                fail("re-encoded message " + TestVectors.hex(again) + " does not parse: " + e.reason());
            }
        }
        // both outcomes must be exercised, else the generator is broken
        assertTrue(parsed > 50_000, "parsed " + parsed);
        assertTrue(refused > 50_000, "refused " + refused);
    }

    private static byte[] nextInput(SplittableRandom rnd, List<byte[]> seeds) {
        int kind = rnd.nextInt(5);
        if (kind == 0) {
            byte[] b = new byte[rnd.nextInt(65)];
            rnd.nextBytes(b);
            if (b.length > 0 && rnd.nextBoolean()) {
                b[0] = (byte) (0x40 | (b[0] & 0x3F)); // version 1, so parsing goes past the header
            }
            return b;
        }
        byte[] b = Mutations.mutate(rnd, seeds.get(rnd.nextInt(seeds.size())));
        return b;
    }

    private void assertSharedParseRefuses(byte[] input, MessageFormatException expected) {
        try {
            Message m = parser.parseShared(input.clone(), null, 0);
            fail("parseShared(" + TestVectors.hex(input) + ") took " + m + "; parse refused: " + expected.reason());
        } catch (MessageFormatException e) {
            assertEquals(expected.reason(), e.reason(), () -> "refusal of " + TestVectors.hex(input));
        }
    }
}
