package io.stagecoach.examples.faults;

/**
 * The {@link Error} a faulty receiver throws for {@link FaultKind#RECEIVER_DIES}: not a
 * RuntimeException, so it passes the connector's per-datagram catch and ends the receive thread.
 */
public final class InjectedError extends Error {
    private static final long serialVersionUID = 1L;

    public InjectedError() {
        super("injected " + FaultKind.RECEIVER_DIES, null, false, false);
    }
}
