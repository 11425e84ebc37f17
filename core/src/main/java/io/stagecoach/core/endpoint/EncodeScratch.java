package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.elements.Connector;
import io.stagecoach.elements.EndpointContext;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The encoding buffer of the thread running a layer stack (a receive thread with the protocol
 * stage inline, or a worker of the pooled stage): a response is encoded into it and handed to
 * {@link Connector#send(ByteBuffer, EndpointContext)}, which reads it before returning, so a
 * response that is not remembered for duplicates leaves no garbage. Taken for the time of one
 * send; a send made meanwhile on the same thread (an interceptor sending, a connector that
 * delivers in place) gets a fresh array instead of overwriting it. A message larger than the
 * buffer gets a fresh array too.
 */
final class EncodeScratch {
    /** Room for a block of 1024 bytes with its header, token and options. */
    static final int SIZE = 1536;
    private static final ThreadLocal<EncodeScratch> OF_THREAD = ThreadLocal.withInitial(EncodeScratch::new);

    private final byte[] own = new byte[SIZE];
    private final ByteBuffer ownBuffer = ByteBuffer.wrap(own);
    private boolean taken;
    private boolean mine;
    private byte[] array;
    /** Bytes of the message last encoded. */
    int length;

    static EncodeScratch take() {
        EncodeScratch s = OF_THREAD.get();
        if (s.taken) {
            s = new EncodeScratch(); // re-entered on this thread: the buffer is in use below us
        }
        s.taken = true;
        return s;
    }

    /** Encodes {@code m} into the buffer, or into a new array if it does not fit; returns that array. */
    byte[] encode(UdpMessageSerializer serializer, Message m) {
        length = serializer.encodedLength(m);
        mine = length <= SIZE;
        array = mine ? own : new byte[length];
        serializer.serialize(m, array, 0);
        return array;
    }

    /** The encoded bytes as a buffer positioned at 0. */
    ByteBuffer buffer() {
        return mine ? ownBuffer.clear().limit(length) : ByteBuffer.wrap(array, 0, length);
    }

    /** The encoded bytes in an array of their own, for a sender that keeps them. */
    byte[] copy() {
        return mine ? Arrays.copyOf(own, length) : array;
    }

    void release() {
        taken = false;
        array = null;
    }
}
