package io.stagecoach.elements;

/**
 * Learns the fate of one outbound datagram. Exactly one of the two methods is called, once,
 * on a connector thread or on the thread that called {@link Connector#send(RawData)} when the
 * datagram is rejected immediately (too large, queue full, connector stopped).
 *
 * <p>"Sent" means handed to the operating system (or the simulated network); UDP gives no
 * delivery guarantee beyond that.
 */
public interface SendCallback {

    /** The datagram left through the socket. */
    void onSent();

    /**
     * The datagram was not sent.
     *
     * @param cause a {@link SendFailedException} naming the reason, or the I/O error
     */
    void onFailed(Throwable cause);
}
