package io.stagecoach.elements.dtls.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.tls.DatagramTransport;

/**
 * The {@link DatagramTransport} BouncyCastle reads from and writes to for one session.
 *
 * <p>Two modes. While the handshake runs, {@link #receive} blocks the handshake thread on a
 * bounded queue that the connector's receive thread fills ({@link #offer}). Once established, the
 * receive thread itself puts one datagram in a {@linkplain #drive slot} and calls BC's
 * {@code DTLSTransport.receive} at once; when BC asks for more than that datagram, {@link #receive}
 * throws a preallocated {@link InterruptedIOException} (BC passes those through without failing
 * the session), so the receive thread never blocks here.
 *
 * <p>Sending goes straight to {@link Output}: on the caller's thread, under BC's per-session
 * write lock.
 */
public final class SessionTransport implements DatagramTransport {

    /** Where BC's ciphertext datagrams go. */
    @FunctionalInterface
    public interface Output {
        void send(byte[] datagram) throws IOException;
    }

    /** Thrown when BC wants another datagram in established mode: there is none, return now. */
    static final class NoDatagram extends InterruptedIOException {
        private static final long serialVersionUID = 1L;

        NoDatagram() {
            super("no datagram pending");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    public static final InterruptedIOException NO_DATAGRAM = new NoDatagram();
    private static final byte[] CLOSED = new byte[0];

    private final LinkedBlockingQueue<byte[]> queue;
    private final Output output;
    private final int receiveLimit;
    private final int sendLimit;
    private final Runnable onClose;
    private byte[] slot;
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

    /** Handshake mode: queues a datagram for the handshake thread; {@code false} if full or closed. */
    public boolean offer(byte[] datagram) {
        return !closed && queue.offer(datagram);
    }

    /** Switches to established mode and returns what the handshake thread left unread. */
    public List<byte[]> establish() {
        established = true;
        List<byte[]> rest = new ArrayList<>();
        queue.drainTo(rest);
        rest.remove(CLOSED);
        return rest;
    }

    /** Established mode: the next {@link #receive} returns this datagram (caller holds the session lock). */
    public void drive(byte[] datagram) {
        slot = datagram;
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public int getReceiveLimit() {
        byte[] s = slot;
        return s != null ? Math.max(s.length, 1) : receiveLimit;
    }

    @Override
    public int getSendLimit() {
        return sendLimit;
    }

    @Override
    public int receive(byte[] buf, int off, int len, int waitMillis) throws IOException {
        byte[] d = slot;
        if (d != null) {
            slot = null;
            return copy(d, buf, off, len);
        }
        if (established || closed) {
            if (closed && !established) {
                throw new IOException("transport closed");
            }
            throw NO_DATAGRAM;
        }
        try {
            d = waitMillis == 0 ? queue.take() : queue.poll(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("handshake interrupted");
        }
        if (d == null) {
            throw new SocketTimeoutException();
        }
        if (d == CLOSED) {
            queue.offer(CLOSED); // wake any later receive too
            throw new IOException("transport closed");
        }
        return copy(d, buf, off, len);
    }

    private static int copy(byte[] d, byte[] buf, int off, int len) {
        if (d.length > len) {
            return -1; // larger than the receive limit: BC discards it
        }
        System.arraycopy(d, 0, buf, off, d.length);
        return d.length;
    }

    @Override
    public void send(byte[] buf, int off, int len) throws IOException {
        if (closed && established) {
            // BC's own close_notify goes out before close(); anything later is dropped
            return;
        }
        byte[] datagram;
        if (off == 0 && len == buf.length) {
            datagram = buf; // BC allocates each record afresh and never touches it again
        } else {
            datagram = new byte[len];
            System.arraycopy(buf, off, datagram, 0, len);
        }
        output.send(datagram);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            queue.clear();
            queue.offer(CLOSED);
            onClose.run();
        }
    }
}
