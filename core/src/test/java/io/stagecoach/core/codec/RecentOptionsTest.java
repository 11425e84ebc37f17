package io.stagecoach.core.codec;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The parser's table of recent option sets ({@link RecentOptions}) as seen through {@link UdpMessageParser}. */
class RecentOptionsTest {

    private static final EndpointContext PEER = EndpointContext.of(new InetSocketAddress("10.0.0.2", 40000));
    // CON GET mid=abcd token=0a0b0c0d, Uri-Path "bench"
    private static final String BENCH = "4401abcd" + "0a0b0c0d" + "b562656e6368";
    // CON GET, Uri-Path "b", Uri-Path "" (empty), Uri-Query "q=1", payload "hi"
    private static final String THREE = "4401abcd" + "0a0b0c0d" + "b162" + "00" + "43713d31" + "ff" + "6869";

    private final UdpMessageParser parser = new UdpMessageParser();

    private Message lend(String wire) throws MessageFormatException {
        byte[] buffer = hex("eeee" + wire);
        Message m = parser.parseLent(buffer, 2, buffer.length - 2, PEER, 0);
        Arrays.fill(buffer, (byte) 'X'); // the connector reads its next datagram into it
        return m;
    }

    @Test
    void aSetIsKeptAtItsSecondSightingAndSharedFromTheThird() throws MessageFormatException {
        OptionSet first = lend(BENCH).options();
        OptionSet second = lend(BENCH).options();
        OptionSet third = lend(BENCH).options();
        OptionSet fourth = lend(BENCH).options();
        assertNotSame(first, second, "seen once: not kept yet");
        assertSame(second, third, "kept at the second sighting");
        assertSame(third, fourth);
        assertEquals(List.of("bench"), fourth.uriPath(), "kept values do not read the reused buffer");
        assertEquals(parser.parse(hex(BENCH)).options(), fourth);
    }

    @Test
    void aKeptSetOfSeveralOptionsKeepsItsValuesAndThePayloadStaysPerMessage() throws MessageFormatException {
        lend(THREE);
        lend(THREE);
        Message m = lend(THREE);
        assertSame(lend(THREE).options(), m.options());
        assertEquals(List.of("b", ""), m.options().uriPath());
        assertEquals(List.of("q=1"), m.options().uriQuery());
        assertEquals("hi", m.payloadString());
        assertEquals(parser.parse(hex(THREE)), m);
    }

    @Test
    void aKeptSetFromASharedDatagramDoesNotReadThatDatagram() throws MessageFormatException {
        byte[] first = hex(BENCH);
        byte[] second = hex(BENCH);
        parser.parseShared(first, PEER, 0);
        OptionSet kept = parser.parseShared(second, PEER, 0).options();
        Arrays.fill(second, (byte) 'X'); // not allowed of a caller; shows the kept set holds a copy
        assertEquals(List.of("bench"), kept.uriPath());
        assertSame(kept, parser.parseShared(hex(BENCH), PEER, 0).options());
    }

    @Test
    void otherOptionsGetTheirOwnSetEvenAfterOneWasKept() throws MessageFormatException {
        lend(BENCH);
        lend(BENCH);
        // same length, one byte different: a hit would need the bytes equal, not only the hash slot
        String other = "4401abcd" + "0a0b0c0d" + "b562656e6369";
        for (int i = 0; i < 3; i++) {
            assertEquals(List.of("bench"), lend(BENCH).options().uriPath());
            assertEquals(List.of("benci"), lend(other).options().uriPath());
        }
    }

    @Test
    void optionsThatChangeEveryTimeAreNeverKept() throws MessageFormatException {
        List<OptionSet> sets = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            // a Uri-Path that changes every time, e.g. a client naming each request
            sets.add(lend("4401abcd" + "0a0b0c0d" + "b3" + hexOf(String.format("%03d", i))).options());
        }
        Set<OptionSet> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        distinct.addAll(sets);
        assertEquals(sets.size(), distinct.size(), "no set is shared: none came twice in a row");
        for (int i = 0; i < sets.size(); i++) {
            assertEquals(1, sets.get(i).size());
            assertEquals(List.of(String.format("%03d", i)), sets.get(i).uriPath());
        }
    }

    @Test
    void longEncodingsAreNotKept() throws MessageFormatException {
        // one Uri-Path of 70 bytes: 72 encoded option bytes, above MAX_BYTES
        String value = "61".repeat(70);
        String wire = "4401abcd" + "0a0b0c0d" + "bd39" + value;
        OptionSet a = lend(wire).options();
        OptionSet b = lend(wire).options();
        OptionSet c = lend(wire).options();
        assertNotSame(b, c);
        assertEquals(a, c);
        assertEquals("a".repeat(70), c.uriPathString());
    }

    @Test
    void threadsSharingAParserEachGetTheirOwnOptions() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        int path = (thread * 7 + i) % 96; // more paths than slots: entries are replaced all the time
                        String name = String.format("p%03d", path);
                        byte[] buffer = hex("4401abcd" + "0a0b0c0d" + "b4" + hexOf(name));
                        Message m = parser.parseLent(buffer, 0, buffer.length, PEER, 0);
                        Arrays.fill(buffer, (byte) 'X');
                        if (!List.of(name).equals(m.options().uriPath())) {
                            throw new AssertionError("expected /" + name + ", got " + m.options());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static String hexOf(String ascii) {
        StringBuilder sb = new StringBuilder();
        for (char c : ascii.toCharArray()) {
            sb.append(String.format("%02x", (int) c));
        }
        return sb.toString();
    }
}
