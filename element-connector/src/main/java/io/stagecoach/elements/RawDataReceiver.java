package io.stagecoach.elements;

/**
 * Receives inbound datagrams from a {@link Connector}.
 *
 * <p>Called on a connector thread (for the in-memory network: on the scheduler's thread). An
 * exception thrown here is logged by the connector and does not stop reception.
 */
@FunctionalInterface
public interface RawDataReceiver {

    void receiveData(RawData data);
}
