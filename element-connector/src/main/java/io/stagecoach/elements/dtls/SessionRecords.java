package io.stagecoach.elements.dtls;

import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.SendCallback;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records of established sessions, after BouncyCastle's handshake: decrypting a datagram's
 * records on the receive thread, encrypting application data on the sender's thread, alerts.
 * BouncyCastle's {@code DTLSTransport} is not used here; the {@link Session} holds the keys (through
 * its {@link RecordProtection}), the replay window and the sequence numbers.
 *
 * <p>Per record (RFC 6347 §4.1.2): only the session's epoch is read (epoch-0 records in a datagram
 * are the peer's repeated handshake flight and only its encrypted Finished matters); a sequence
 * number the window has seen is a replay; a record that does not authenticate is dropped silently
 * and counted (§4.1.2.7); a replay-window update and an address change (RFC 9146 §6) follow only
 * authentication, and only application data moves a session. An encrypted handshake record is the
 * peer's repeated final flight: ours was lost, so it is sent again (at most twice a second).
 * close_notify is answered with close_notify and ends the session (RFC 5246 §7.2.1); a fatal alert
 * ends it silently.
 */
final class SessionRecords {

    private static final Logger LOG = LoggerFactory.getLogger(SessionRecords.class);
    static final int ALERT_WARNING = 1;
    static final int ALERT_FATAL = 2;
    static final int CLOSE_NOTIFY = 0;
    private static final byte[] CLOSE_NOTIFY_ALERT = {ALERT_WARNING, CLOSE_NOTIFY};

    /** Per receive thread: a header flyweight and the place of the last opened plaintext. */
    private static final class Scratch {
        final RecordHeader header = new RecordHeader();
        final RecordProtection.Opened opened = new RecordProtection.Opened();
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private final DtlsConnector connector;
    private final DtlsCounters counters;
    private final SessionTable table;
    private final int cidLength;

    SessionRecords(DtlsConnector connector, DtlsCounters counters, SessionTable table, int cidLength) {
        this.connector = connector;
        this.counters = counters;
        this.table = table;
        this.cidLength = cidLength;
    }

    /**
     * Reads every record of {@code b} for session {@code s} and hands the application data up
     * through {@code up}.
     *
     * @return {@code false} if the session is closed (the caller may try elsewhere)
     */
    boolean receive(Session s, byte[] b, InetSocketAddress source, long receiveNanos, long nowNanos,
            Consumer<RawData> up) {
        Scratch sc = SCRATCH.get();
        RecordHeader h = sc.header;
        RecordProtection.Opened o = sc.opened;
        List<byte[]> delivered = null;
        byte[][] resend = null;
        boolean moved = false;
        boolean closeNotify = false;
        boolean fatal = false;
        boolean authenticated = false;
        synchronized (s.readLock) {
            if (s.isClosed()) {
                return false;
            }
            int off = 0;
            while (off < b.length && !closeNotify && !fatal) {
                try {
                    h.parse(b, off, b.length, cidLength);
                } catch (MalformedRecordException e) {
                    counters.datagramsMalformed.increment(); // screened before: cannot happen
                    break;
                }
                off = h.end();
                if (h.epoch() != s.epoch()) {
                    continue;
                }
                if (h.contentType() == RecordHeader.CHANGE_CIPHER_SPEC) {
                    continue;
                }
                if (!s.window().isFresh(h.sequence())) {
                    counters.recordsReplayed.increment();
                    continue;
                }
                if (h.fragmentLength() < s.protection().minFragmentLength()) {
                    counters.datagramsMalformed.increment();
                    continue;
                }
                if (!s.protection().open(b, h, o)) {
                    counters.recordsBadMac.increment();
                    continue;
                }
                boolean newest = s.window().accept(h.sequence());
                authenticated = true;
                switch (o.contentType) {
                    case RecordHeader.APPLICATION_DATA -> {
                        s.confirmed();
                        if (newest && h.hasCid() && !source.equals(s.peer())) {
                            moved = true;
                        }
                        if (delivered == null) {
                            delivered = new ArrayList<>(1);
                        }
                        delivered.add(Arrays.copyOfRange(b, o.offset, o.offset + o.length));
                    }
                    case RecordHeader.ALERT -> {
                        s.confirmed();
                        if (o.length == 2 && b[o.offset + 1] == CLOSE_NOTIFY) {
                            closeNotify = true;
                        } else if (o.length == 2 && b[o.offset] == ALERT_FATAL) {
                            fatal = true;
                        }
                    }
                    case RecordHeader.HANDSHAKE -> resend = s.flightToResend(nowNanos);
                    default -> {
                        // heartbeat and others: not negotiated, ignored
                    }
                }
            }
            if (closeNotify || fatal) {
                s.close();
            }
        }
        if (authenticated) {
            table.touched(s, nowNanos);
        }
        if (moved) {
            InetSocketAddress old = s.peer();
            table.move(s, source);
            counters.addressChanges.increment();
            LOG.debug("session {} moved from {} to {}", s.cid(), old, source);
        }
        if (resend != null) {
            for (byte[] d : resend) {
                connector.sendCiphertext(d, s.plainContext(), null);
            }
        }
        if (delivered != null) {
            EndpointContext context = s.context();
            for (byte[] d : delivered) {
                up.accept(RawData.inbound(d, context, receiveNanos));
            }
        }
        if (closeNotify || fatal) {
            if (table.remove(s)) {
                counters.sessionsClosedByPeer.increment();
            }
            if (closeNotify) {
                sendAlert(s, CLOSE_NOTIFY_ALERT, null);
            }
            LOG.debug("session with {} closed by the peer ({})", s.peer(), closeNotify ? "close_notify" : "fatal alert");
        }
        return true;
    }

    /** Sends close_notify (RFC 5246 §7.2.1); {@code callback} learns when it left. */
    void closeNotify(Session s, SendCallback callback) {
        sendAlert(s, CLOSE_NOTIFY_ALERT, callback);
    }

    private void sendAlert(Session s, byte[] alert, SendCallback callback) {
        byte[] record;
        try {
            record = s.seal(RecordHeader.ALERT, alert, 0, alert.length);
        } catch (IllegalStateException e) {
            if (callback != null) {
                callback.onFailed(e);
            }
            return;
        }
        connector.sendCiphertext(record, s.plainContext(), callback);
    }
}
