package io.stagecoach.core.network.internal.dedup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.stagecoach.core.network.internal.dedup.DedupResult.Status;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random operations on a store with few segments and a tiny key space (many probe collisions,
 * removals inside probe runs, grow and shrink) checked step by step against a plain HashMap.
 */
class DeduplicationStoreModelTest {

    static final long SECOND = 1_000_000_000L;

    /** What the model remembers about one message. */
    record Entry(long expiry, byte[] reply, boolean releaseOnComplete) {
    }

    record Key(InetSocketAddress peer, int mid) {
    }

    @Test
    void randomOperationsMatchAReferenceModel() {
        Random random = new Random(20261122L);
        DeduplicationStore s = DeduplicationStore.builder().segments(2).clock(() -> 0L).build();
        InetSocketAddress[] peers = new InetSocketAddress[12];
        for (int i = 0; i < peers.length; i++) {
            peers[i] = i % 4 == 3 ? new InetSocketAddress("2001:db8::" + i, 5683)
                    : new InetSocketAddress("203.0.113." + (i % 3), 5683 + i);
        }
        byte[] inFlight = new byte[0];
        byte[] emptyAck = new byte[0];
        Map<Key, Entry> model = new HashMap<>();
        long now = 0;
        for (int step = 0; step < 100_000; step++) {
            Key key = new Key(peers[random.nextInt(peers.length)], random.nextInt(600));
            int op = random.nextInt(100);
            String where = "step " + step + " op " + op + " " + key;
            if (op < 55) {
                boolean con = random.nextBoolean();
                boolean idempotent = random.nextBoolean();
                DedupResult r = s.lookupOrInsert(key.peer(), key.mid(), con, idempotent, now);
                Entry e = model.get(key);
                if (e == null || now >= e.expiry()) {
                    assertSame(Status.NEW, r.status(), where);
                    long lifetime = (con ? 247 : 145) * SECOND;
                    model.put(key, new Entry(now + lifetime, inFlight, idempotent));
                } else if (e.reply() == inFlight) {
                    assertSame(Status.IN_FLIGHT, r.status(), where);
                } else if (e.reply() == emptyAck) {
                    assertSame(DedupResult.DONE_EMPTY_ACK, r, where);
                } else {
                    assertSame(e.reply(), r.reply(), where);
                }
            } else if (op < 80) {
                byte[] reply = op < 75 ? new byte[] {(byte) step} : emptyAck;
                boolean stored = reply == emptyAck ? s.completeEmptyAck(key.peer(), key.mid())
                        : s.complete(key.peer(), key.mid(), reply);
                Entry e = model.get(key);
                assertEquals(e != null, stored, where);
                if (e != null) {
                    model.put(key, e.releaseOnComplete() && reply != emptyAck ? null
                            : new Entry(e.expiry(), reply, e.releaseOnComplete()));
                    model.remove(key, null);
                }
            } else if (op < 85) {
                assertEquals(model.remove(key) != null, s.forget(key.peer(), key.mid()), where);
            } else if (op < 88) {
                int expected = 0;
                for (Iterator<Entry> it = model.values().iterator(); it.hasNext(); ) {
                    if (now >= it.next().expiry()) {
                        it.remove();
                        expected++;
                    }
                }
                assertEquals(expected, s.sweep(now), where);
            } else {
                now += random.nextInt(4) * SECOND;
            }
            assertEquals(model.size(), s.size(), where);
        }
        s.sweep(now + 300 * SECOND);
        assertEquals(0, s.size());
        assertEquals(0, s.sources());
        assertEquals(0, s.estimatedBytes(), "every entry and reply given back");
    }
}
