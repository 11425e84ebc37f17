package io.stagecoach.examples.faults;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ForwardingConnector;
import io.stagecoach.elements.RawDataReceiver;

/**
 * Delegates everything to a connector but wraps the receiver it is given: at the
 * {@link FaultKind#RECEIVER_DIES} rate the receiver throws {@link InjectedError} instead of
 * taking the datagram, which ends the connector's receive thread (the datagram is lost, and a CON
 * sender retransmits, RFC 7252 §4.2).
 */
final class FaultyConnector extends ForwardingConnector {
    private final FaultInjector faults;

    FaultyConnector(FaultInjector faults, Connector delegate) {
        super(delegate);
        this.faults = faults;
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        super.setRawDataReceiver(data -> {
            if (faults.inject(FaultKind.RECEIVER_DIES)) {
                throw new InjectedError();
            }
            receiver.receiveData(data);
        });
    }
}
