package io.stagecoach.core.dtls;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ForwardingConnector;
import io.stagecoach.elements.RawData;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sits under a DTLS connector and names each datagram it sends by its first record (RFC 6347
 * §4.1): {@code ClientHello}, {@code HelloVerifyRequest}, {@code ServerHello},
 * {@code ClientKeyExchange} (epoch-0 handshake messages, readable in the clear),
 * {@code ChangeCipherSpec}, {@code ApplicationData}, {@code Alert} or {@code Cid} (a tls12_cid
 * record, RFC 9146). It counts them, and loses the first {@code n} of a kind when told, as a
 * lossy link would.
 */
final class RecordTap extends ForwardingConnector {

    private final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> toLose = new ConcurrentHashMap<>();
    private final AtomicInteger lost = new AtomicInteger();
    private final Runnable onSend;

    /** @param onSend runs after each datagram is handed on (or lost): tests wake up on it */
    RecordTap(Connector delegate, Runnable onSend) {
        super(delegate);
        this.onSend = onSend;
    }

    /** Loses the next {@code n} datagrams of {@code kind}. */
    RecordTap lose(String kind, int n) {
        toLose.put(kind, new AtomicInteger(n));
        return this;
    }

    /** Datagrams of {@code kind} handed to this tap (lost ones included). */
    int sent(String kind) {
        AtomicInteger n = sent.get(kind);
        return n == null ? 0 : n.get();
    }

    int lost() {
        return lost.get();
    }

    @Override
    public void send(RawData data) {
        String kind = kind(data.bytes());
        sent.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
        AtomicInteger budget = toLose.get(kind);
        if (budget != null && budget.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            lost.incrementAndGet();
            data.notifySent(); // gone on the wire, as UDP loses it: the sender learns nothing
        } else {
            super.send(data);
        }
        onSend.run();
    }

    static String kind(byte[] d) {
        if (d.length < 13) {
            return "Short";
        }
        int type = d[0] & 0xFF;
        int epoch = ((d[3] & 0xFF) << 8) | (d[4] & 0xFF);
        switch (type) {
            case 20:
                return "ChangeCipherSpec";
            case 21:
                return "Alert";
            case 23:
                return "ApplicationData";
            case 25:
                return "Cid";
            case 22:
                if (epoch != 0 || d.length < 14) {
                    return "EncryptedHandshake";
                }
                switch (d[13] & 0xFF) {
                    case 1:
                        return "ClientHello";
                    case 2:
                        return "ServerHello";
                    case 3:
                        return "HelloVerifyRequest";
                    case 16:
                        return "ClientKeyExchange";
                    case 11:
                        return "Certificate";
                    default:
                        return "Handshake" + (d[13] & 0xFF);
                }
            default:
                return "Unknown" + type;
        }
    }
}
