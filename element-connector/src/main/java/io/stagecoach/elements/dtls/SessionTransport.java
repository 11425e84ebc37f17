package io.stagecoach.elements.dtls;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.tls.DatagramTransport;

/**
 * The {@link DatagramTransport} BouncyCastle's handshake of one peer reads from and writes to.
 * {@link #receive} blocks the handshake thread on a bounded queue that the connector's receive
 * thread fills ({@link #offer}); sends go straight to {@link Output}. Once the handshake is over
 * BouncyCastle is done with the session: {@link #establish} hands back what it left unread, the
 * first sequence number of the new epoch this side may use, and this side's final flight.
 *
 * <p>The final flight is the datagrams sent since BouncyCastle last returned from
 * {@link #receive} (with a datagram or a timeout): what it sends between two reads is one flight
 * (RFC 6347 §4.2.4), a retransmission replacing the previous copy.
 *
 * <p>BouncyCastle hands over one record at a time; the records of a flight travel together in as
 * few datagrams as {@link #getSendLimit} allows (RFC 6347 §4.1.1 allows several records per
 * datagram), sent when BouncyCastle next waits in {@link #receive}, when the handshake thread
 * calls {@link #flush} after BouncyCastle returned, or on {@link #close}: no timer, and a flight is
 * complete before BouncyCastle waits for the answer. One datagram instead of two or three per
 * flight saves system calls on both sides.
 */
final class SessionTransport implements DatagramTransport {

    /** Where BC's ciphertext datagrams go. */
    @FunctionalInterface
    public interface Output {
        void send(byte[] datagram) throws IOException;
    }

    private static final byte[] CLOSED = new byte[0];

    private final LinkedBlockingQueue<byte[]> queue;
    private final Output output;
    private final int receiveLimit;
    private final int sendLimit;
    private final Runnable onClose;
    private final List<byte[]> flight = new ArrayList<>(2);
    /** Records of the current flight not yet sent, together at most {@link #sendLimit} bytes. */
    private final List<byte[]> unsent = new ArrayList<>(3);
    private int unsentLength;
    private boolean flightEnded = true;
    private long highestSentSequence = -1;
    private int highestSentEpoch;
    private volatile boolean established;
    private volatile boolean closed;

    /**
     * @param queueCapacity handshake datagrams held for the handshake thread; more are dropped
     * @param onClose       run once when BC (or the connector) closes the transport
     */
    public SessionTransport(int queueCapacity, Output output, int receiveLimit, int sendLimit, Runnable onClose) {
        this.queue = new LinkedBlockingQueue<>(queueCapacity);
        this.output = output;
        this.receiveLimit = receiveLimit;
        this.sendLimit = sendLimit;
        this.onClose = onClose;
    }

    /** Queues a datagram for the handshake thread; {@code false} if full, closed or established. */
    public boolean offer(byte[] datagram) {
        return !closed && !established && queue.offer(datagram);
    }

    /** Ends the handshake mode and returns what the handshake thread left unread. */
    public List<byte[]> establish() {
        established = true;
        List<byte[]> rest = new ArrayList<>();
        queue.drainTo(rest);
        rest.remove(CLOSED);
        return rest;
    }

    /** The first sequence number this side may use in {@code epoch} (after BC's Finished and its resends). */
    public synchronized long nextSequence(int epoch) {
        return highestSentEpoch == epoch ? highestSentSequence + 1 : 0;
    }

    /** The datagrams of this side's last flight, in order (flushed first). */
    public byte[][] lastFlight() throws IOException {
        flush();
        synchronized (this) {
            return flight.toArray(new byte[0][]);
        }
    }

    /** Sends the records BouncyCastle handed over since the last datagram, as one datagram. */
    public void flush() throws IOException {
        byte[] d;
        synchronized (this) {
            d = takeUnsent();
        }
        if (d != null) {
            output.send(d);
        }
    }

    /** The unsent records as one datagram, noted as part of the flight; {@code null} if none. */
    private byte[] takeUnsent() {
        if (unsent.isEmpty()) {
            return null;
        }
        byte[] d;
        if (unsent.size() == 1) {
            d = unsent.get(0);
        } else {
            d = new byte[unsentLength];
            int at = 0;
            for (byte[] r : unsent) {
                System.arraycopy(r, 0, d, at, r.length);
                at += r.length;
            }
        }
        unsent.clear();
        unsentLength = 0;
        flight.add(d);
        return d;
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public int getReceiveLimit() {
        return receiveLimit;
    }

    @Override
    public int getSendLimit() {
        return sendLimit;
    }

    @Override
    public int receive(byte[] buf, int off, int len, int waitMillis) throws IOException {
        if (closed) {
            throw new IOException("transport closed");
        }
        flush(); // BouncyCastle waits for the answer: its flight is complete
        byte[] d;
        try {
            d = waitMillis == 0 ? queue.take() : queue.poll(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("handshake interrupted");
        } finally {
            synchronized (this) {
                flightEnded = true;
            }
        }
        if (d == null) {
            throw new SocketTimeoutException();
        }
        if (d == CLOSED) {
            queue.offer(CLOSED); // wake any later receive too
            throw new IOException("transport closed");
        }
        if (d.length > len) {
            return -1; // larger than the receive limit: BC discards it
        }
        System.arraycopy(d, 0, buf, off, d.length);
        return d.length;
    }

    @Override
    public void send(byte[] buf, int off, int len) throws IOException {
        if (closed) {
            return;
        }
        byte[] record;
        if (off == 0 && len == buf.length) {
            record = buf; // BC allocates each record afresh and never touches it again
        } else {
            record = new byte[len];
            System.arraycopy(buf, off, record, 0, len);
        }
        byte[] full;
        synchronized (this) {
            if (flightEnded) {
                flight.clear();
                flightEnded = false;
            }
            note(record);
            full = unsentLength + len > sendLimit ? takeUnsent() : null;
            unsent.add(record);
            unsentLength += len;
        }
        if (full != null) {
            output.send(full);
        }
    }

    /** BC sends one record per call; epoch and sequence sit at the same place with or without a CID. */
    private void note(byte[] d) {
        if (d.length >= RecordHeader.HEADER_LENGTH) {
            int epoch = ((d[3] & 0xFF) << 8) | (d[4] & 0xFF);
            long seq = 0;
            for (int i = 5; i < 11; i++) {
                seq = (seq << 8) | (d[i] & 0xFF);
            }
            if (epoch > highestSentEpoch || epoch == highestSentEpoch && seq > highestSentSequence) {
                highestSentEpoch = epoch;
                highestSentSequence = seq;
            }
        }
    }

    @Override
    public void close() {
        if (!closed) {
            try {
                flush(); // BC's alert before it closes, or the rest of a flight
            } catch (IOException e) {
                // the peer learns nothing more; closing goes on
            }
            closed = true;
            queue.clear();
            queue.offer(CLOSED);
            onClose.run();
        }
    }
}
