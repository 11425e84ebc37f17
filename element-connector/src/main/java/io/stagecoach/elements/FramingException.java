package io.stagecoach.elements;

import java.io.IOException;

/**
 * A {@link StreamFramer} refuses the rest of a stream: the connector writes {@link #lastWords()}
 * (when there are any) and closes the connection. The bytes are the protocol's business (for
 * CoAP over TCP an Abort signal); the connector only sends them.
 */
public final class FramingException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient byte[] lastWords;

    /**
     * @param reason    what was wrong, for the log
     * @param lastWords bytes to send before closing, or {@code null} for none; not copied
     */
    public FramingException(String reason, byte[] lastWords) {
        super(reason);
        this.lastWords = lastWords;
    }

    /** A refusal is an expected outcome of a hostile or broken peer: no stack trace. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }

    /** Bytes to send before closing, or {@code null}. */
    public byte[] lastWords() {
        return lastWords;
    }
}
