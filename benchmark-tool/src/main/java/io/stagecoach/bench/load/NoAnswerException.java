package io.stagecoach.bench.load;

/** Nothing answered in the first step: the target is down or the URI is wrong. Exit code 3. */
public final class NoAnswerException extends Exception {

    private static final long serialVersionUID = 1L;

    public NoAnswerException(String message) {
        super(message);
    }
}
