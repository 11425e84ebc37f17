package io.stagecoach.examples.cli;

/** A bad command line: the message is printed as one line on stderr and the command exits 2. */
public final class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
