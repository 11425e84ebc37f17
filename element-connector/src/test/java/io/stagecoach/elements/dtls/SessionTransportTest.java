package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the records BouncyCastle hands over, one per call, leave as datagrams: the records of a
 * flight together (RFC 6347 §4.1.1), within the send limit, once BouncyCastle waits for the answer
 * or the handshake thread flushes. No thread and no clock: every call returns at once (the
 * answer BouncyCastle reads is queued before it asks).
 */
class SessionTransportTest {

    private final List<byte[]> sent = new ArrayList<>();

    private SessionTransport transport(int sendLimit) {
        return new SessionTransport(4, sent::add, 1500, sendLimit, () -> { });
    }

    /** A handshake record of {@code length} bytes in all, header included. */
    private static byte[] record(int epoch, long sequence, int length) {
        byte[] r = new byte[length];
        r[0] = (byte) RecordHeader.HANDSHAKE;
        r[1] = (byte) 0xFE;
        r[2] = (byte) 0xFD;
        r[3] = (byte) (epoch >>> 8);
        r[4] = (byte) epoch;
        for (int i = 0; i < 6; i++) {
            r[10 - i] = (byte) (sequence >>> (8 * i));
        }
        int body = length - RecordHeader.HEADER_LENGTH;
        r[11] = (byte) (body >>> 8);
        r[12] = (byte) body;
        for (int i = RecordHeader.HEADER_LENGTH; i < length; i++) {
            r[i] = (byte) (sequence + i);
        }
        return r;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    /** BouncyCastle reads the queued answer, as it does after sending a flight. */
    private static int answer(SessionTransport t) throws IOException {
        byte[] answer = record(0, 99, 20);
        t.offer(answer);
        return t.receive(new byte[1500], 0, 1500, 1000);
    }

    @Test
    void theRecordsOfAFlightLeaveAsOneDatagramWhenBouncyCastleWaitsForTheAnswer() throws IOException {
        SessionTransport t = transport(1400);
        byte[] serverHello = record(0, 1, 80);
        byte[] serverHelloDone = record(0, 2, 25);
        t.send(serverHello, 0, serverHello.length);
        t.send(serverHelloDone, 0, serverHelloDone.length);
        assertEquals(0, sent.size(), "nothing leaves while the flight may grow");
        assertEquals(20, answer(t));
        assertEquals(1, sent.size());
        assertArrayEquals(concat(serverHello, serverHelloDone), sent.get(0));
    }

    @Test
    void aFlightLargerThanTheSendLimitIsSplitBetweenRecordsNeverInsideOne() throws IOException {
        SessionTransport t = transport(100);
        byte[] a = record(0, 1, 60);
        byte[] b = record(0, 2, 40);
        byte[] c = record(0, 3, 50);
        byte[] copyOfC = c.clone();
        t.send(a, 0, a.length);
        t.send(b, 0, b.length);
        t.send(concat(new byte[] {7}, c), 1, c.length); // a record inside a larger buffer
        answer(t);
        assertEquals(2, sent.size());
        assertArrayEquals(concat(a, b), sent.get(0), "60 + 40 bytes fill the limit of 100");
        assertArrayEquals(copyOfC, sent.get(1));
    }

    @Test
    void theFinalFlightLeavesOnFlushAndIsKeptForThePeersRepetition() throws IOException {
        SessionTransport t = transport(1400);
        byte[] hello = record(0, 1, 70);
        t.send(hello, 0, hello.length);
        answer(t);
        byte[] changeCipherSpec = record(0, 2, 14);
        byte[] finished = record(1, 0, 53);
        t.send(changeCipherSpec, 0, changeCipherSpec.length);
        t.send(finished, 0, finished.length);
        t.flush();
        t.flush(); // nothing left: no empty datagram
        assertEquals(2, sent.size());
        assertArrayEquals(hello, sent.get(0));
        byte[] finalFlight = concat(changeCipherSpec, finished);
        assertArrayEquals(finalFlight, sent.get(1));
        byte[][] kept = t.lastFlight();
        assertEquals(1, kept.length);
        assertArrayEquals(finalFlight, kept[0]);
        assertEquals(1, t.nextSequence(1), "epoch 1 went up to sequence 0");
    }

    @Test
    void closeSendsWhatBouncyCastleLeftUnsentItsAlert() throws IOException {
        SessionTransport t = transport(1400);
        byte[] alert = record(0, 5, 15);
        t.send(alert, 0, alert.length);
        t.close();
        assertEquals(1, sent.size());
        assertArrayEquals(alert, sent.get(0));
    }
}
