package io.stagecoach.elements;

/**
 * Told by a {@link StreamConnector} when a connection can carry data and when it has ended. The
 * {@link EndpointContext} passed is the connection's identity: it carries
 * {@link StreamConnector#CONNECTION_ID}, and every {@link RawData} received on the connection
 * has this context.
 */
public interface ConnectionHandler {

    /**
     * The connection is ready (TCP connected, TLS or WebSocket handshake done). Called on the
     * connection's I/O thread before any data is read from it or any data queued for it is
     * written: what the handler {@linkplain Connector#send sends} to {@code connection} inside
     * this call is written first (a protocol greeting).
     *
     * @return the framer for the connection's byte stream; ignored by message transports
     *     (WebSockets), which may be given {@code null}
     */
    StreamFramer opened(EndpointContext connection);

    /**
     * The handler's own object for {@code connection}, which the connector hands back with every
     * frame received on it ({@link RawData#attachment()}), so that the receiver need not look the
     * connection up by address per frame. Called once, on the connection's I/O thread, right
     * after {@link #opened} returned.
     *
     * @return the object, or {@code null} (the default) for none
     */
    default Object attachment(EndpointContext connection) {
        return null;
    }

    /**
     * The connection has ended (either side closed it, it failed, or the connector stopped).
     * Called once per {@link #opened} connection, on an I/O thread.
     */
    void closed(EndpointContext connection);
}
