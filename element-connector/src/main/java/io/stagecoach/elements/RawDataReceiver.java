package io.stagecoach.elements;

import java.util.Arrays;

/**
 * Receives inbound datagrams from a {@link Connector}.
 *
 * <p>Called on a connector thread (for the in-memory network: on the scheduler's thread). An
 * exception thrown here is logged by the connector and does not stop reception.
 */
@FunctionalInterface
public interface RawDataReceiver {

    void receiveData(RawData data);

    /**
     * A received datagram whose bytes are lent for the duration of the call: {@code length} bytes
     * of {@code buffer} from {@code offset}. The connector reads its next datagram into the same
     * buffer once this returns, so a receiver keeps nothing that refers to it (it copies what it
     * keeps), and it never writes to it.
     *
     * <p>The UDP connectors deliver every datagram this way, for a receiver that decodes it at
     * once on the connector's thread (an endpoint whose protocol stage runs inline): the
     * connector then allocates no array and no {@link RawData} per datagram. This default copies
     * the bytes into a new {@link RawData} and passes it to {@link #receiveData}, so a receiver that
     * implements only that method sees every datagram as before.
     *
     * @param sender       the peer that sent it
     * @param receiveNanos the reading of the connector's {@link io.stagecoach.elements.time.Clock}
     *                     when the datagram was taken from the socket
     */
    default void receiveDatagram(byte[] buffer, int offset, int length, EndpointContext sender, long receiveNanos) {
        receiveData(RawData.inbound(Arrays.copyOfRange(buffer, offset, offset + length), sender, receiveNanos));
    }
}
