package io.stagecoach.core.endpoint;

import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.TcpFrameSplitter;
import io.stagecoach.core.codec.TcpMessageSerializer;
import io.stagecoach.core.network.EndpointCounters.Counter;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.elements.FramingException;
import io.stagecoach.elements.StreamFramer;
import io.stagecoach.elements.time.Scheduler;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Cuts one connection's TCP or TLS stream into frames with {@link TcpFrameSplitter} (RFC 8323
 * §3.3), on its I/O thread; a frame the splitter refuses (oversize, bad length) aborts with the
 * Abort frame as the connection's last words. Keeps the connection's "frame incomplete since"
 * time for the frame timeout.
 */
final class ReliableFramer implements StreamFramer {

    private final ReliableConnection c;
    private final TcpFrameSplitter splitter;
    private final TcpMessageSerializer serializer;
    private final Scheduler scheduler;
    private final EndpointCounters counters;
    private final LongAdder abortsSent;
    private final BanLog banLog;

    ReliableFramer(ReliableConnection c, int maxMessageSize, TcpMessageSerializer serializer, Scheduler scheduler,
            EndpointCounters counters, LongAdder abortsSent, BanLog banLog) {
        this.c = c;
        this.splitter = new TcpFrameSplitter(maxMessageSize);
        this.serializer = serializer;
        this.scheduler = scheduler;
        this.counters = counters;
        this.abortsSent = abortsSent;
        this.banLog = banLog;
    }

    @Override
    public void read(ByteBuffer chunk, Consumer<byte[]> frames) throws FramingException {
        boolean completed = false;
        while (chunk.hasRemaining()) {
            byte[] frame;
            try {
                frame = splitter.next(chunk);
            } catch (MessageFormatException e) {
                counters.increment(Counter.MALFORMED);
                abortsSent.increment();
                banLog.malformed(c.peer, e.reason());
                throw new FramingException(e.reason(), serializer.serialize(e.abortSignal()));
            }
            if (frame != null) {
                completed = true;
                frames.accept(frame);
            }
        }
        if (splitter.isIdle()) {
            c.partialSinceNanos = -1;
        } else if (completed || c.partialSinceNanos < 0) {
            c.partialSinceNanos = scheduler.nanoTime();
        }
    }
}
