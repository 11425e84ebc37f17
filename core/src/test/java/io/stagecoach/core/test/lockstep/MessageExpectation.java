package io.stagecoach.core.test.lockstep;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Fluent checks on one message a {@link LockstepPeer} received, as returned by
 * {@link LockstepPeer#expect()}. Every check throws an {@link AssertionError} that shows the
 * whole received message and what was expected instead; every check returns {@code this}:
 * <pre>{@code
 * peer.expect().type(Type.ACK).code(Code.CONTENT).mid(0x1234).token("0a0b").payload("hi");
 * }</pre>
 * The {@code store*} methods put values into the peer's variables for later steps
 * ({@link LockstepPeer#mid(String)}, {@link LockstepPeer#token(String)}).
 */
public final class MessageExpectation {

    private final LockstepPeer peer;
    private final ReceivedDatagram datagram;
    private final ReceivedDatagram previous;
    private final Message message;

    MessageExpectation(LockstepPeer peer, ReceivedDatagram datagram, ReceivedDatagram previous) {
        this.peer = peer;
        this.datagram = datagram;
        this.previous = previous;
        if (datagram.isMalformed()) {
            throw new AssertionError(peer + " expected a message, but " + datagram.malformedText());
        }
        this.message = datagram.message();
    }

    /** The parsed message, for checks this class lacks. */
    public Message message() {
        return message;
    }

    public ReceivedDatagram datagram() {
        return datagram;
    }

    /** Virtual-clock reading when the message was delivered. */
    public long receivedAtNanos() {
        return datagram.receiveNanos();
    }

    /** Time from the peer's time origin to reception. */
    public Duration elapsed() {
        return datagram.elapsed();
    }

    public MessageExpectation type(Type expected) {
        return check(message.type() == expected, "type " + expected, message.type());
    }

    public MessageExpectation code(Code expected) {
        return check(message.code().equals(expected), "code " + expected, message.code());
    }

    public MessageExpectation mid(int expected) {
        return check(message.mid() == expected, "mid " + expected + " (0x" + Integer.toHexString(expected) + ")",
                message.mid() + " (0x" + Integer.toHexString(message.mid()) + ")");
    }

    /** The token in hex; {@code ""} for the empty token. */
    public MessageExpectation token(String hex) {
        return token(Token.fromHex(hex));
    }

    public MessageExpectation token(Token expected) {
        return check(message.token().equals(expected), "token " + hexOrEmpty(expected), hexOrEmpty(message.token()));
    }

    public MessageExpectation from(InetSocketAddress expected) {
        return check(datagram.source().equals(expected), "sender " + expected, datagram.source());
    }

    /** The payload in UTF-8. */
    public MessageExpectation payload(String expected) {
        return check(message.payloadString().equals(expected), "payload \"" + expected + "\"",
                "\"" + message.payloadString() + "\"");
    }

    public MessageExpectation payload(byte[] expected) {
        return check(Arrays.equals(message.payload(), expected), "payload " + HexFormat.of().formatHex(expected),
                HexFormat.of().formatHex(message.payload()));
    }

    public MessageExpectation noPayload() {
        return check(message.payloadLength() == 0, "no payload", message.payloadLength() + " bytes");
    }

    public MessageExpectation payloadLength(int expected) {
        return check(message.payloadLength() == expected, "payload of " + expected + " bytes",
                message.payloadLength() + " bytes");
    }

    /** Some occurrence of {@code number} has exactly {@code value}. */
    public MessageExpectation option(OptionNumber number, byte[] value) {
        List<Option> found = message.options().get(number);
        boolean ok = found.stream().anyMatch(o -> Arrays.equals(o.value(), value));
        return check(ok, number + "=0x" + HexFormat.of().formatHex(value), found.isEmpty() ? "absent" : found);
    }

    /** Some occurrence of {@code number} has the UTF-8 value {@code value}. */
    public MessageExpectation option(OptionNumber number, String value) {
        return option(number, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Some occurrence of {@code number} has the uint value {@code value} (any encoding length). */
    public MessageExpectation optionUint(OptionNumber number, long value) {
        List<Option> found = message.options().get(number);
        boolean ok = found.stream().anyMatch(o -> o.length() <= 8 && o.asUint() == value);
        return check(ok, number + "=" + value, found.isEmpty() ? "absent" : found);
    }

    public MessageExpectation hasOption(OptionNumber number) {
        return check(message.options().has(number), number + " present", "absent");
    }

    public MessageExpectation noOption(OptionNumber number) {
        return check(!message.options().has(number), "no " + number, message.options().get(number));
    }

    /** Uri-Path segments joined with {@code '/'}, without a leading slash. */
    public MessageExpectation path(String expected) {
        String actual = message.options().uriPathString();
        return check(actual.equals(expected), "Uri-Path \"" + expected + "\"", "\"" + actual + "\"");
    }

    public MessageExpectation observe(int expected) {
        int actual = message.options().observe();
        return check(actual == expected, "Observe " + expected, actual < 0 ? "absent" : actual);
    }

    public MessageExpectation contentFormat(int expected) {
        int actual = message.options().contentFormat();
        return check(actual == expected, "Content-Format " + expected, actual < 0 ? "absent" : actual);
    }

    public MessageExpectation contentFormat(ContentFormat expected) {
        return contentFormat(expected.number());
    }

    public MessageExpectation block1(int num, boolean more, int szx) {
        BlockOption actual = message.options().block1();
        BlockOption expected = BlockOption.of(num, more, szx);
        return check(expected.equals(actual), "Block1 " + expected, actual == null ? "no valid Block1" : actual);
    }

    public MessageExpectation block2(int num, boolean more, int szx) {
        BlockOption actual = message.options().block2();
        BlockOption expected = BlockOption.of(num, more, szx);
        return check(expected.equals(actual), "Block2 " + expected, actual == null ? "no valid Block2" : actual);
    }

    /** A bare ACK (RFC 7252 §4.2): type ACK, code 0.00. */
    public MessageExpectation emptyAck() {
        return type(Type.ACK).code(Code.EMPTY);
    }

    /** A bare ACK for {@code mid}. */
    public MessageExpectation emptyAck(int mid) {
        return emptyAck().mid(mid);
    }

    /** A Reset (RFC 7252 §4.2): type RST, code 0.00. */
    public MessageExpectation rst() {
        return type(Type.RST).code(Code.EMPTY);
    }

    public MessageExpectation rst(int mid) {
        return rst().mid(mid);
    }

    /** Any other condition, named in the failure message. */
    public MessageExpectation matches(Predicate<Message> condition, String description) {
        return check(condition.test(message), description, "a message that does not match");
    }

    /** Received {@code at} after the peer's time origin, give or take {@code tolerance}. */
    public MessageExpectation at(Duration at, Duration tolerance) {
        return between(at.minus(tolerance), at.plus(tolerance));
    }

    /** Received in {@code [min, max]} after the peer's time origin. */
    public MessageExpectation between(Duration min, Duration max) {
        Duration t = elapsed();
        return check(t.compareTo(min) >= 0 && t.compareTo(max) <= 0,
                "reception in [" + ReceivedDatagram.millis(min.toNanos()) + ", " + ReceivedDatagram.millis(max.toNanos())
                        + "] after the time origin", "+" + ReceivedDatagram.millis(t.toNanos()));
    }

    /**
     * Received {@code [min, max]} after the datagram expected before this one: for
     * retransmission gaps (RFC 7252 §4.2: the k-th gap lies in [2^k ACK_TIMEOUT, 2^k ACK_TIMEOUT
     * ACK_RANDOM_FACTOR]).
     */
    public MessageExpectation sincePrevious(Duration min, Duration max) {
        if (previous == null) {
            throw fail("a previous datagram to measure from", "this is the first one");
        }
        long gap = datagram.receiveNanos() - previous.receiveNanos();
        return check(gap >= min.toNanos() && gap <= max.toNanos(),
                "a gap in [" + ReceivedDatagram.millis(min.toNanos()) + ", " + ReceivedDatagram.millis(max.toNanos())
                        + "] since #" + previous.index(), ReceivedDatagram.millis(gap));
    }

    /** Stores the MID as variable {@code name}. */
    public MessageExpectation storeMid(String name) {
        peer.store(name, message.mid());
        return this;
    }

    /** Stores the token as variable {@code name}. */
    public MessageExpectation storeToken(String name) {
        peer.store(name, message.token());
        return this;
    }

    /** Stores the Observe value (-1 when absent) as variable {@code name}. */
    public MessageExpectation storeObserve(String name) {
        peer.store(name, message.options().observe());
        return this;
    }

    /** The MID equals the stored variable {@code name}. */
    public MessageExpectation sameMid(String name) {
        return mid(peer.mid(name));
    }

    /** The token equals the stored variable {@code name}. */
    public MessageExpectation sameToken(String name) {
        return token(peer.token(name));
    }

    /** Back to the peer, for the next step. */
    public LockstepPeer and() {
        return peer;
    }

    private MessageExpectation check(boolean ok, String expected, Object actual) {
        if (!ok) {
            throw fail(expected, actual);
        }
        return this;
    }

    private AssertionError fail(String expected, Object actual) {
        return new AssertionError(peer + " received " + datagram + "\n  expected " + expected + ", but was "
                + Objects.toString(actual));
    }

    private static String hexOrEmpty(Token t) {
        return t.isEmpty() ? "(empty)" : t.toHex();
    }
}
