package io.stagecoach.bench.load;

import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One virtual client of CoAPBench over {@code coap+tcp}: its own connection, whose first frame
 * is its CSM (RFC 8323 §5.3.1), and at most one outstanding request, matched by its token (a
 * request counter). Owned by exactly one {@link TcpEventLoop}.
 */
final class TcpVirtualClient {

    final SocketChannel channel;
    int token;
    long sentNanos;
    boolean awaiting;
    /** The CSM has been sent (it goes with the first request). */
    boolean greeted;
    /** The connection ended (closed, Release, Abort): the client sends nothing more. */
    boolean closed;
    /** Bytes of a frame that arrived in part, or {@code null}. */
    byte[] carry;
    /** Bytes of a frame too large to keep that are still to be skipped. */
    long skip;
    /** Bytes of the current request the socket did not take yet, or {@code null}. */
    byte[] pendingOut;
    SelectionKey key;

    TcpVirtualClient(SocketChannel channel, int firstToken) {
        this.channel = channel;
        this.token = firstToken;
    }
}
