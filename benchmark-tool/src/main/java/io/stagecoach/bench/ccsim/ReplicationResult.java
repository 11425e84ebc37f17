package io.stagecoach.bench.ccsim;

import io.stagecoach.elements.sim.BottleneckLink;
import java.util.List;

/**
 * What one replication measured, per client, plus the accounting the tests check.
 *
 * @param fctSeconds flow completion time of each client
 * @param unnecessary unnecessary retransmissions of each client (see {@link ClientTap})
 * @param histogram [i] = successful exchanges that needed i retransmissions
 * @param failedExchanges exchanges that gave up after MAX_RETRANSMIT
 */
public record ReplicationResult(double[] fctSeconds, int[] unnecessary, long[] histogram, long failedExchanges,
        Accounting accounting, double simulatedSeconds) {

    /**
     * Bytes and copies seen by the taps versus by the links.
     *
     * @param clientWireBytes sum over client datagrams of CoAP size + overhead
     * @param uplinkBytes bytes offered to the uplink bottleneck (its counter)
     * @param acceptedRequestCopies request copies the uplink queue accepted
     * @param serverRequestCopies request copies that reached the server
     */
    public record Accounting(long clientWireBytes, long uplinkBytes, long serverWireBytes, long downlinkBytes,
            long acceptedRequestCopies, long serverRequestCopies, long uplinkDrops, long downlinkDrops) {
    }

    static ReplicationResult collect(List<SimClient> clients, List<ClientTap> taps, ServerTap server,
            BottleneckLink up, BottleneckLink down, long elapsedNanos) {
        int n = clients.size();
        double[] fct = new double[n];
        int[] unnecessary = new int[n];
        long[] histogram = new long[taps.get(0).histogram().length];
        long failed = 0;
        long clientBytes = 0;
        long accepted = 0;
        for (int i = 0; i < n; i++) {
            SimClient c = clients.get(i);
            ClientTap tap = taps.get(i);
            fct[i] = c.fctNanos() / 1e9;
            unnecessary[i] = tap.unnecessaryRetransmissions();
            long[] h = tap.histogram();
            for (int k = 0; k < h.length; k++) {
                histogram[k] += h[k];
            }
            failed += c.failed();
            clientBytes += tap.wireBytes();
            accepted += tap.acceptedCopies();
        }
        Accounting acc = new Accounting(clientBytes, up.counters().bytesSent(), server.wireBytesSent(),
                down.counters().bytesSent(), accepted, server.requestCopiesReceived(),
                up.counters().droppedBuffer(), down.counters().droppedBuffer());
        return new ReplicationResult(fct, unnecessary, histogram, failed, acc, elapsedNanos / 1e9);
    }
}
