package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;

/**
 * Jazzer target for what the receive thread reads of every datagram before BouncyCastle sees it:
 * the record headers (RFC 6347 §4.1), the connection ID of {@code tls12_cid} records (RFC 9146
 * §4, as a {@link CidKey}), and the handshake fragment headers of epoch-0 records with the PSK
 * identity of a ClientKeyExchange (RFC 4279 §2). The first input byte is the connection ID length
 * (0..32) the datagram is read with; the rest is the datagram.
 *
 * <p>Contract per input: the parsers return or throw {@link MalformedRecordException}, nothing
 * else; what they return stays inside the datagram and is self-consistent. {@code mvn verify}
 * replays the seeds in {@code DtlsRecordFuzzTestInputs/records/} (written by
 * {@code DtlsSeedCorpusTest}); {@code JAZZER_FUZZ=1} fuzzes (.ci/fuzz).
 */
class DtlsRecordFuzzTest {

    private final RecordHeader header = new RecordHeader();
    private final HandshakeFragment fragment = new HandshakeFragment();

    @FuzzTest(maxDuration = "60s")
    void records(byte[] input) {
        if (input.length == 0) {
            return;
        }
        int cidLength = (input[0] & 0xFF) % 33;
        byte[] b = Arrays.copyOfRange(input, 1, input.length);
        int off = 0;
        while (off < b.length) {
            try {
                header.parse(b, off, b.length, cidLength);
            } catch (MalformedRecordException refused) {
                return; // the rest of the datagram is not looked at, as in the connector
            }
            assertEquals(off, header.recordOffset());
            assertTrue(header.fragmentOffset() >= off + RecordHeader.HEADER_LENGTH);
            assertTrue(header.end() <= b.length && header.end() >= header.fragmentOffset());
            assertEquals(header.end() - header.fragmentOffset(), header.fragmentLength());
            if (header.hasCid()) {
                assertTrue(header.cidOffset() + cidLength + 2 == header.fragmentOffset() && header.epoch() > 0);
                CidKey key = CidKey.of(b, header.cidOffset(), cidLength);
                assertEquals(key, CidKey.of(Arrays.copyOfRange(b, header.cidOffset(), header.cidOffset() + cidLength)));
                assertEquals(key.hashCode(), CidKey.of(b, header.cidOffset(), cidLength).hashCode());
            } else {
                assertEquals(-1, header.cidOffset());
            }
            if (header.epoch() == 0 && header.contentType() == RecordHeader.HANDSHAKE) {
                fragments(b, header.fragmentOffset(), header.end());
            }
            off = header.end();
        }
    }

    private void fragments(byte[] b, int from, int end) {
        int fo = from;
        while (fo < end) {
            try {
                fragment.parse(b, fo, end);
            } catch (MalformedRecordException refused) {
                return;
            }
            assertTrue(fragment.end() > fo && fragment.end() <= end);
            assertTrue(fragment.fragmentOffset() + (long) fragment.fragmentLength() <= fragment.messageLength());
            byte[] identity = fragment.pskIdentity(b);
            if (identity != null) {
                assertEquals(HandshakeFragment.CLIENT_KEY_EXCHANGE, fragment.type());
                assertTrue(identity.length + 2 <= fragment.fragmentLength());
            }
            fo = fragment.end();
        }
    }
}
