package io.stagecoach.core.test.lockstep;

import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.elements.EndpointContext;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;
import io.stagecoach.elements.SendCallback;
import io.stagecoach.elements.sim.SimulatedConnector;
import io.stagecoach.elements.sim.SimulatedNetwork;
import io.stagecoach.elements.time.VirtualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The scripted side of a lockstep test (after Californium's {@code LockstepEndpoint}): a
 * {@link SimulatedConnector} on a {@link SimulatedNetwork} driven by a {@link VirtualClock}, with
 * which a test sends hand-made datagrams and asserts, one by one, what the endpoint under test
 * answers and when. A test reads like the message-flow figures of RFC 7252 §2 and Appendix A:
 * <pre>
 *   Client (peer)                         Server (endpoint under test)
 *      | CON GET /test MID=0x1234 T=0a0b -------->|   peer.con().get().mid(0x1234).token("0a0b")
 *      |                                          |       .path("test").to(server).go();
 *      |<-------- ACK 2.05 MID=0x1234 T=0a0b "hi" |   peer.expect().type(ACK).code(CONTENT)
 *      |                                          |       .mid(0x1234).token("0a0b").payload("hi");
 *      |              (no retransmission)         |   peer.expectNothingFor(ofSeconds(10));
 * </pre>
 *
 * <p><b>Time.</b> Nothing moves by itself. {@link #expect()} first runs the tasks due now (the
 * network delivers even zero-delay datagrams from a clock task), so it sees what the endpoint
 * sent in reaction to the previous step; {@link #advance(Duration)},
 * {@link #expectNothingFor(Duration)} and {@link #expectWithin(Duration)} move the virtual clock.
 * Every datagram records the clock reading at delivery; {@link MessageExpectation#at},
 * {@link MessageExpectation#between} and {@link MessageExpectation#sincePrevious} check
 * retransmission schedules against the time origin (attach, or the last {@link #markTime()}).
 *
 * <p><b>Variables.</b> Values the endpoint chooses (the MID of a separate response, a token) are
 * captured with {@link MessageExpectation#storeMid(String)} and read back with {@link #mid(String)}
 * / {@link #token(String)}.
 *
 * <p>Single-threaded by design: call it from the test thread only; the receiver runs inside the
 * clock's {@code advance}/{@code runDue} on that same thread.
 */
public final class LockstepPeer implements AutoCloseable {

    /** Clock step of {@link #expectWithin(Duration)}: how far the clock may overshoot a delivery. */
    public static final Duration POLL_STEP = Duration.ofMillis(1);

    private final String name;
    private final VirtualClock clock;
    private final SimulatedConnector connector;
    private final Deque<ReceivedDatagram> queue = new ArrayDeque<>();
    private final List<ReceivedDatagram> consumed = new ArrayList<>();
    private final Map<String, Object> variables = new HashMap<>();
    private long originNanos;
    private int receivedCount;
    private InetSocketAddress defaultDestination;

    private LockstepPeer(String name, VirtualClock clock, SimulatedConnector connector) {
        this.name = name;
        this.clock = clock;
        this.connector = connector;
        this.originNanos = clock.nanoTime();
    }

    /** A started peer at {@code address} on {@code network}, which must be driven by {@code clock}. */
    public static LockstepPeer attach(SimulatedNetwork network, InetSocketAddress address, VirtualClock clock) {
        return attach("peer", network, address, clock);
    }

    /** As {@link #attach(SimulatedNetwork, InetSocketAddress, VirtualClock)}, named in failure messages. */
    public static LockstepPeer attach(String name, SimulatedNetwork network, InetSocketAddress address,
            VirtualClock clock) {
        Objects.requireNonNull(address, "address");
        if (network.scheduler() != clock) {
            throw new IllegalArgumentException("the network must be driven by the peer's VirtualClock");
        }
        SimulatedConnector connector = network.connector(address);
        LockstepPeer peer = new LockstepPeer(name, clock, connector);
        connector.setRawDataReceiver(peer.receiver());
        try {
            connector.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot attach " + name + " at " + address, e);
        }
        return peer;
    }

    private RawDataReceiver receiver() {
        return data -> queue.add(new ReceivedDatagram(++receivedCount, data.bytes(), data.context().peer(),
                data.receiveNanos(), originNanos));
    }

    /** The bound address (the real port if attached with port 0). */
    public InetSocketAddress address() {
        return connector.getAddress();
    }

    /** Where messages go when the builder gets no {@code to(..)}. */
    public LockstepPeer defaultDestination(InetSocketAddress destination) {
        this.defaultDestination = Objects.requireNonNull(destination, "destination");
        return this;
    }

    // ---- sending ----

    /** A confirmable message; choose the code next ({@code get()}, {@code response(..)}). */
    public OutgoingMessage con() {
        return message(Type.CON);
    }

    public OutgoingMessage non() {
        return message(Type.NON);
    }

    /** An ACK for {@code mid}: bare unless a code is set (piggybacked response, RFC 7252 §5.2.1). */
    public OutgoingMessage ack(int mid) {
        return message(Type.ACK).mid(mid);
    }

    /** A Reset for {@code mid} (RFC 7252 §4.2). */
    public OutgoingMessage rst(int mid) {
        return message(Type.RST).mid(mid);
    }

    /** A CoAP ping: Empty CON (RFC 7252 §4.3). */
    public OutgoingMessage ping(int mid) {
        return message(Type.CON).mid(mid);
    }

    public OutgoingMessage message(Type type) {
        return new OutgoingMessage(this, type, defaultDestination);
    }

    /** Sends {@code raw} exactly as given, e.g. a malformed datagram. */
    public LockstepPeer send(byte[] raw, InetSocketAddress to) {
        Throwable[] failure = new Throwable[1];
        connector.send(RawData.outbound(raw.clone(), EndpointContext.of(to), new SendCallback() {
            @Override
            public void onSent() {
            }

            @Override
            public void onFailed(Throwable cause) {
                failure[0] = cause;
            }
        }));
        // the simulated connector reports a rejection on the calling thread
        if (failure[0] != null) {
            throw new IllegalStateException(this + " could not send " + raw.length + " bytes to " + to, failure[0]);
        }
        return this;
    }

    // ---- expecting ----

    /**
     * The next received message, after running the tasks due now.
     *
     * @throws AssertionError if nothing arrived (listing what did arrive before), or if the
     *     datagram is malformed ("malformed: reason")
     */
    public MessageExpectation expect() {
        clock.runDue();
        return nextMessage("a message");
    }

    /**
     * As {@link #expect()}, but advances the clock in {@link #POLL_STEP}s up to {@code max} until
     * a datagram arrives. The reception time recorded is exact; the clock may stand up to one
     * step past it afterwards.
     */
    public MessageExpectation expectWithin(Duration max) {
        long deadline = clock.nanoTime() + max.toNanos();
        clock.runDue();
        while (queue.isEmpty() && clock.nanoTime() < deadline) {
            clock.advance(Duration.ofNanos(Math.min(POLL_STEP.toNanos(), deadline - clock.nanoTime())));
        }
        return nextMessage("a message within " + ReceivedDatagram.millis(max.toNanos()));
    }

    /** The next received datagram, parsed or not, after running the tasks due now. */
    public ReceivedDatagram expectRaw() {
        clock.runDue();
        return take("a datagram");
    }

    /** Runs the tasks due now and tells how many datagrams are waiting to be expected. */
    public int waiting() {
        clock.runDue();
        return queue.size();
    }

    /** Runs the tasks due now and asserts that nothing is waiting. */
    public LockstepPeer expectNothing() {
        clock.runDue();
        return assertEmpty("nothing");
    }

    /** Advances the clock by {@code duration} and asserts that nothing arrived meanwhile. */
    public LockstepPeer expectNothingFor(Duration duration) {
        clock.advance(duration);
        return assertEmpty("nothing for " + ReceivedDatagram.millis(duration.toNanos()));
    }

    private MessageExpectation nextMessage(String what) {
        ReceivedDatagram previous = consumed.isEmpty() ? null : consumed.get(consumed.size() - 1);
        return new MessageExpectation(this, take(what), previous);
    }

    private ReceivedDatagram take(String what) {
        ReceivedDatagram d = queue.poll();
        if (d == null) {
            StringBuilder sb = new StringBuilder(this + " expected " + what + ", but none arrived");
            sb.append(consumed.isEmpty() ? "; nothing received so far" : "; received so far:");
            for (ReceivedDatagram c : consumed) {
                sb.append("\n    ").append(c);
            }
            if (clock.pendingTasks() > 0) {
                sb.append("\n  (the clock has ").append(clock.pendingTasks())
                        .append(" pending task(s): advance it, or use expectWithin)");
            }
            throw new AssertionError(sb.toString());
        }
        consumed.add(d);
        return d;
    }

    private LockstepPeer assertEmpty(String what) {
        if (!queue.isEmpty()) {
            StringBuilder sb = new StringBuilder(this + " expected " + what + ", but received:");
            for (ReceivedDatagram d : queue) {
                sb.append("\n    ").append(d);
            }
            throw new AssertionError(sb.toString());
        }
        return this;
    }

    /** Every datagram taken by an {@code expect*} call so far, in order. */
    public List<ReceivedDatagram> consumed() {
        return List.copyOf(consumed);
    }

    // ---- time ----

    /** Moves the virtual clock forward, delivering what falls due. */
    public LockstepPeer advance(Duration duration) {
        clock.advance(duration);
        return this;
    }

    /** Makes now the time origin for {@link MessageExpectation#at} of datagrams received from now on. */
    public LockstepPeer markTime() {
        originNanos = clock.nanoTime();
        return this;
    }

    /** Time since the origin. */
    public Duration elapsed() {
        return Duration.ofNanos(clock.nanoTime() - originNanos);
    }

    // ---- variables ----

    /** Stores a value for later steps; overwrites. */
    public LockstepPeer store(String variable, Object value) {
        variables.put(Objects.requireNonNull(variable, "variable"), value);
        return this;
    }

    /** A stored value; AssertionError naming the known variables if absent. */
    public Object var(String variable) {
        if (!variables.containsKey(variable)) {
            throw new AssertionError(this + " has no variable \"" + variable + "\"; stored: " + variables.keySet());
        }
        return variables.get(variable);
    }

    /** A MID stored with {@link MessageExpectation#storeMid(String)}. */
    public int mid(String variable) {
        return typed(variable, Integer.class);
    }

    /** A token stored with {@link MessageExpectation#storeToken(String)}. */
    public Token token(String variable) {
        return typed(variable, Token.class);
    }

    private <T> T typed(String variable, Class<T> type) {
        Object v = var(variable);
        if (!type.isInstance(v)) {
            throw new AssertionError("variable \"" + variable + "\" holds " + v + ", not a " + type.getSimpleName());
        }
        return type.cast(v);
    }

    /** Detaches from the network; datagrams sent here afterwards count as undeliverable. */
    @Override
    public void close() {
        connector.destroy();
    }

    @Override
    public String toString() {
        return name + " " + address() + " at +" + ReceivedDatagram.millis(clock.nanoTime() - originNanos);
    }
}
