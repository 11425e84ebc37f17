package io.stagecoach.bench.load;

import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;

/**
 * One virtual client of CoAPBench: its own UDP socket (connected to the server, so the kernel
 * drops datagrams from anyone else) and at most one outstanding request. Owned by exactly one
 * {@link EventLoop}; never touched by another thread while the loop runs.
 *
 * <p>MIDs advance by one per request (RFC 7252 §4.4), tokens too (a request counter, §5.3.1);
 * both start at a random value so that consecutive steps do not reuse a MID the server still
 * remembers from the previous step's client on the same port.
 */
final class VirtualClient {

    final DatagramChannel channel;
    int mid;
    int token;
    /** {@code System.nanoTime()} when the outstanding request was first sent. */
    long sentNanos;
    /** Retransmissions of the outstanding request so far (RFC 7252 §4.2). */
    int retransmissions;
    /** A request is outstanding. */
    boolean awaiting;
    /** The send buffer was full: the request goes out when the channel is writable. */
    boolean writePending;
    /** Registration with the owning loop's selector. */
    SelectionKey key;

    VirtualClient(DatagramChannel channel, int firstMid, int firstToken) {
        this.channel = channel;
        this.mid = firstMid & 0xFFFF;
        this.token = firstToken;
    }

    /** Moves to the next MID and token before a new request. */
    void advance() {
        mid = (mid + 1) & 0xFFFF;
        token++;
        retransmissions = 0;
    }
}
