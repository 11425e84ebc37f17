package io.stagecoach.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.testutil.TestVectors;

/**
 * Jazzer target for the datagram codec (RFC 7252 §3). Contract checked per input: parsing throws
 * nothing but {@link MessageFormatException}; whatever parses re-encodes to the same bytes (the
 * option encoding is canonical) and re-parses to an equal message.
 *
 * <p>{@code mvn verify} runs it in Jazzer's regression mode over the seed corpus in
 * {@code src/test/resources/io/stagecoach/core/fuzz/UdpMessageParserFuzzTestInputs/parse/}: every
 * valid, malformed and ignored vector of {@code test-vectors/coap-messages.json} (checked by
 * {@link SeedCorpusTest}) plus any crash input Jazzer ever wrote there. {@code JAZZER_FUZZ=1}
 * fuzzes for real, bounded by {@code maxDuration} (docs/reliability.md).
 */
class UdpMessageParserFuzzTest {

    private final UdpMessageParser parser = new UdpMessageParser();
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();

    @FuzzTest(maxDuration = "60s")
    void parse(byte[] datagram) {
        Message message;
        try {
            message = parser.parse(datagram);
        } catch (MessageFormatException refused) {
            return; // the one allowed outcome for bad input
        }
        byte[] again = serializer.serialize(message);
        assertArrayEquals(datagram, again, () -> "re-encoding of " + TestVectors.hex(datagram));
        try {
            assertEquals(message, parser.parse(again), () -> "re-parse of " + TestVectors.hex(again));
        } catch (MessageFormatException e) {
            throw new AssertionError("re-encoded " + TestVectors.hex(again) + " does not parse: " + e.reason(), e);
        }
    }
}
