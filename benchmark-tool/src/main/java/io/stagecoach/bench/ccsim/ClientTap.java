package io.stagecoach.bench.ccsim;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ForwardingConnector;
import io.stagecoach.elements.RawData;
import java.nio.ByteBuffer;

/**
 * Observes what one client puts on the wire: every copy of its current Confirmable request, and
 * whether the uplink buffer accepted it.
 *
 * <p>Unnecessary retransmission (Järvinen et al., §4): a retransmission of a message
 * whose earlier copy was delivered. A request can be lost only where it enters the shared uplink
 * queue (the router ↔ server hop has no loss), so a copy is delivered iff the queue accepted it;
 * for a message sent as copies 0..n, the copies after the first accepted one are unnecessary,
 * whether they were themselves accepted or dropped. {@link ServerTap} counts the arrivals, and
 * the tests check that they equal the accepted copies.
 */
final class ClientTap extends ForwardingConnector {

    private final DropFlagLink uplink;
    private final int overheadBytes;
    private int currentMid = -1;
    private int copies;
    private int firstAccepted = -1;

    private long wireBytes;
    private long acceptedCopies;
    private int unnecessary;
    private final long[] histogram;

    ClientTap(Connector delegate, DropFlagLink uplink, int overheadBytes, int maxRetransmit) {
        super(delegate);
        this.uplink = uplink;
        this.overheadBytes = overheadBytes;
        this.histogram = new long[maxRetransmit + 1];
    }

    @Override
    public void send(RawData data) {
        ByteBuffer b = data.buffer();
        super.send(data);
        wireBytes += b.limit() + overheadBytes;
        if (!Datagrams.isConRequest(b)) {
            return;
        }
        int mid = Datagrams.mid(b);
        if (mid != currentMid) {
            currentMid = mid;
            copies = 0;
            firstAccepted = -1;
        }
        if (!uplink.lastDropped()) {
            acceptedCopies++;
            if (firstAccepted < 0) {
                firstAccepted = copies;
            }
        }
        copies++;
    }

    /** The client's current exchange ended; {@code success}: it got its response. */
    void exchangeEnded(boolean success) {
        if (firstAccepted >= 0) {
            unnecessary += copies - 1 - firstAccepted;
        }
        if (success && copies > 0) {
            histogram[copies - 1]++;
        }
        currentMid = -1;
        copies = 0;
        firstAccepted = -1;
    }

    /** Wire bytes (CoAP + overhead) of everything this client sent. */
    long wireBytes() {
        return wireBytes;
    }

    long acceptedCopies() {
        return acceptedCopies;
    }

    int unnecessaryRetransmissions() {
        return unnecessary;
    }

    /** [i] = successful exchanges that needed i retransmissions. */
    long[] histogram() {
        return histogram.clone();
    }
}
