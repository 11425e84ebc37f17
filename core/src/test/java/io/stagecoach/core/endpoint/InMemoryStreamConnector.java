package io.stagecoach.core.endpoint;

import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.ReliableFraming;
import io.stagecoach.core.codec.TcpFrameSplitter;
import io.stagecoach.core.codec.TcpMessageParser;
import io.stagecoach.core.codec.TcpMessageSerializer;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.elements.ConnectionHandler;
import io.stagecoach.elements.ConnectorCounters;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.FramingException;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.StreamConnector;
import io.stagecoach.elements.StreamFramer;
import io.stagecoach.elements.time.Clock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link StreamConnector} in memory for lockstep tests: the test plays the peer of each
 * connection ({@link Peer}), writes bytes in any chunking and reads what the endpoint sent,
 * frame by frame, on the test's thread. Behaves as {@code NettyTcpConnector} does where the
 * endpoint can tell: greeting first, last words then close on a {@link FramingException},
 * {@link ConnectionHandler#closed} once per connection.
 */
final class InMemoryStreamConnector implements StreamConnector {

    private final boolean messageTransport;
    private final boolean client;
    private final Clock clock;
    private final ConnectorCounters counters = new ConnectorCounters();
    private final AtomicLong ids = new AtomicLong(1);
    private final Map<InetSocketAddress, Peer> peers = new HashMap<>();
    private RawDataReceiver receiver = d -> { };
    private ConnectionHandler handler;
    private boolean running;

    InMemoryStreamConnector(boolean messageTransport, Clock clock) {
        this(messageTransport, false, clock);
    }

    /**
     * @param client as a client connector: a send to an address without a connection opens one
     *               (the endpoint's greeting first), found with {@link #peer}
     */
    InMemoryStreamConnector(boolean messageTransport, boolean client, Clock clock) {
        this.messageTransport = messageTransport;
        this.client = client;
        this.clock = clock;
    }

    /** The connection with {@code address}, or {@code null}. */
    Peer peer(InetSocketAddress address) {
        return peers.get(address);
    }

    /** The far end of one connection. */
    final class Peer {
        final EndpointContext context;
        StreamFramer framer;
        /** What the handler attached to this connection, carried by each frame as the real connector does. */
        Object attachment;
        private final Deque<byte[]> sent = new ArrayDeque<>();
        private final TcpFrameSplitter splitter = new TcpFrameSplitter(1 << 20);
        private final TcpMessageParser parser = new TcpMessageParser(framing(), 1 << 20);
        final TcpMessageSerializer serializer = new TcpMessageSerializer(framing());
        boolean closed;

        Peer(EndpointContext context) {
            this.context = context;
        }

        /** Bytes from the peer to the endpoint (TCP: any chunk; WebSockets: one whole message). */
        void write(byte[] bytes) {
            if (closed) {
                throw new IllegalStateException("connection closed");
            }
            if (messageTransport) {
                deliver(bytes.clone());
                return;
            }
            try {
                framer.read(ByteBuffer.wrap(bytes), this::deliver);
            } catch (FramingException e) {
                if (e.lastWords() != null) {
                    sent.add(e.lastWords());
                }
                close();
            }
        }

        void write(Message m) {
            write(serializer.serialize(m));
        }

        void write(SignalingMessage s) {
            write(serializer.serialize(s));
        }

        private void deliver(byte[] frame) {
            counters.incrementReceived();
            receiver.receiveData(RawData.inbound(frame, context, clock.nanoTime(), attachment));
        }

        /** The next whole frame the endpoint sent, or {@code null}. */
        byte[] nextFrame() {
            byte[] f = sent.poll();
            if (f == null || messageTransport) {
                return f;
            }
            try {
                byte[] whole = splitter.next(f, 0, f.length);
                if (whole == null || splitter.consumed() != f.length) {
                    throw new AssertionError("a send was not one whole frame");
                }
                return whole;
            } catch (MessageFormatException e) {
                throw new AssertionError(e);
            }
        }

        boolean hasSent() {
            return !sent.isEmpty();
        }

        /** The next frame as a signal; fails when it is none. */
        SignalingMessage nextSignal() throws MessageFormatException {
            byte[] f = nextFrame();
            if (f == null) {
                throw new AssertionError("nothing was sent");
            }
            if (!parser.isSignaling(f)) {
                throw new AssertionError("expected a signal, got " + parser.parseMessage(f));
            }
            return parser.parseSignal(f);
        }

        /** The next frame as a request or response; fails on a signal. */
        Message nextMessage() throws MessageFormatException {
            byte[] f = nextFrame();
            if (f == null) {
                throw new AssertionError("nothing was sent");
            }
            if (parser.isSignaling(f)) {
                throw new AssertionError("expected a message, got " + parser.parseSignal(f));
            }
            return parser.parseMessage(f);
        }

        /** The peer closes the connection. */
        void close() {
            if (!closed) {
                closed = true;
                peers.remove(context.peer());
                handler.closed(context);
            }
        }
    }

    ReliableFraming framing() {
        return messageTransport ? ReliableFraming.WEBSOCKET : ReliableFraming.TCP;
    }

    /** A peer connects from {@code port} on loopback. */
    Peer connect(int port) {
        return open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    private Peer open(InetSocketAddress address) {
        Peer p = new Peer(EndpointContext.of(address).withAttribute(CONNECTION_ID, ids.getAndIncrement()));
        peers.put(address, p);
        p.framer = handler.opened(p.context); // what the endpoint sends in here comes first
        p.attachment = handler.attachment(p.context);
        return p;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        for (Peer p : peers.values().toArray(new Peer[0])) {
            p.close();
        }
    }

    @Override
    public void destroy() {
        stop();
    }

    @Override
    public void send(RawData data) {
        Peer p = peers.get(data.context().peer());
        if (p == null && client && data.context().attribute(CONNECTION_ID) == null) {
            p = open(data.context().peer()); // as NettyTcpConnector's client: connect on the first send
        }
        if (p == null || p.closed) {
            counters.incrementSendErrors();
            data.notifyFailed(new IllegalStateException("no connection"));
            return;
        }
        p.sent.add(data.bytes());
        counters.incrementSent();
        data.notifySent();
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        this.receiver = receiver;
    }

    @Override
    public void setConnectionHandler(ConnectionHandler handler) {
        this.handler = handler;
    }

    @Override
    public boolean isMessageTransport() {
        return messageTransport;
    }

    @Override
    public boolean isClient() {
        return client;
    }

    /** Closes after what was sent (all of it is in the peer's queue already). */
    @Override
    public boolean close(EndpointContext connection) {
        Peer p = peers.get(connection.peer());
        if (p == null) {
            return false;
        }
        p.close();
        return true;
    }

    @Override
    public int connections() {
        return peers.size();
    }

    @Override
    public InetSocketAddress getAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 5683);
    }

    @Override
    public String getProtocol() {
        return messageTransport ? "WS" : "TCP";
    }

    @Override
    public ConnectorCounters counters() {
        return counters;
    }

    boolean isRunning() {
        return running;
    }
}
