package io.stagecoach.elements;

/**
 * A {@link Connector} over connections (TCP, TLS, WebSockets) rather than datagrams. The
 * connection is the peer (RFC 8323 §3): every {@link RawData} received on a connection carries
 * its {@link EndpointContext}, with the peer's address and {@link #CONNECTION_ID}; sending to
 * that context writes to that connection (and fails once it is closed). Sending to a context
 * without an id writes to the open connection with that peer address, and a client connector
 * opens one when there is none; a server connector never connects out.
 *
 * <p>The connector knows nothing of the protocol: the endpoint tells it how to cut the stream
 * into frames ({@link StreamFramer}, one per connection, from the {@link ConnectionHandler}),
 * and learns from the handler when connections open and close. Order is kept per connection,
 * in both directions.
 *
 * <p>Wrappers ({@link ForwardingConnector}) of a stream connector must implement this interface
 * too, or the endpoint treats the connector as a datagram connector.
 */
public interface StreamConnector extends Connector {

    /** The connection a context belongs to: unique per connector for its lifetime. */
    EndpointContext.Key<Long> CONNECTION_ID = new EndpointContext.Key<>("connection", Long.class);

    /** Receives connection events and supplies framers; set it before {@link #start()}. */
    void setConnectionHandler(ConnectionHandler handler);

    /**
     * Whether the transport delivers whole messages (WebSockets: one binary message is one frame,
     * no {@link StreamFramer} is used) rather than a byte stream.
     */
    boolean isMessageTransport();

    /** Whether this connector opens connections ({@code true}) or accepts them. */
    boolean isClient();

    /**
     * Closes the connection of {@code connection} (matched by id, else by peer address) after the
     * data already sent to it has been written; {@link ConnectionHandler#closed} follows.
     *
     * @return {@code false} when no such connection is open
     */
    boolean close(EndpointContext connection);

    /** Connections currently open (ready or still handshaking). */
    int connections();
}
