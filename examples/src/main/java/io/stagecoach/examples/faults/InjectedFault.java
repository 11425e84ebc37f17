package io.stagecoach.examples.faults;

/** The exception a {@link FaultInjector} hook throws; its message names the {@link FaultKind}. */
public final class InjectedFault extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InjectedFault(FaultKind kind) {
        super("injected " + kind, null, false, false); // no stack trace: thrown often under load
    }
}
