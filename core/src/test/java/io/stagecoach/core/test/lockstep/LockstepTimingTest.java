package io.stagecoach.core.test.lockstep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.elements.sim.LinkConditions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Virtual time: delayed links, reception times, retransmission-like gaps, captured variables. */
class LockstepTimingTest extends LockstepFixture {

    static final Duration MS = Duration.ofMillis(1);

    @Test
    void delayedLinkDeliversAfterExactly100ms() {
        net.setConditions(A, B, LinkConditions.builder().delay(Duration.ofMillis(100)).build());
        client.con().get().mid(1).go();

        server.expectNothingFor(Duration.ofMillis(99));
        server.advance(MS);
        MessageExpectation e = server.expect().mid(1).at(Duration.ofMillis(100), Duration.ZERO);
        assertEquals(clock.nanoTime(), e.receivedAtNanos());
        assertEquals(Duration.ofMillis(100), e.elapsed());

        String early = failureOf(() -> e.at(Duration.ofMillis(50), Duration.ofMillis(10)));
        assertTrue(early.contains("expected reception in [40.000ms, 60.000ms] after the time origin, but was +100.000ms"),
                early);
    }

    @Test
    void expectNothingForFailsWhenTheDatagramArrivesInTime() {
        net.setConditions(A, B, LinkConditions.builder().delay(Duration.ofMillis(100)).build());
        client.non().get().mid(1).go();
        String msg = failureOf(() -> server.expectNothingFor(Duration.ofMillis(100)));
        assertTrue(msg.contains("expected nothing for 100.000ms, but received:\n    #1 at +100.000ms"), msg);
    }

    @Test
    void expectWithoutAdvancingPointsToThePendingDelivery() {
        net.setConditions(A, B, LinkConditions.builder().delay(Duration.ofMillis(100)).build());
        client.non().get().mid(1).go();
        String msg = failureOf(() -> server.expect());
        assertTrue(msg.contains("pending task(s): advance it, or use expectWithin"), msg);
    }

    /** A scripted RFC 7252 §4.2 schedule (ACK_TIMEOUT 2 s, factor 1): sends at 0, 2, 6, 14 s. */
    @Test
    void retransmissionScheduleIsMeasuredWithExpectWithinAndSincePrevious() {
        for (long at : new long[] {0, 2, 6, 14}) {
            clock.schedule(() -> client.con().get().mid(0x42).go(), Duration.ofSeconds(at));
        }
        server.expect().mid(0x42).at(Duration.ZERO, Duration.ZERO);
        server.expectWithin(Duration.ofSeconds(3)).mid(0x42).between(Duration.ofSeconds(2), Duration.ofSeconds(3))
                .sincePrevious(Duration.ofSeconds(2), Duration.ofSeconds(3));
        MessageExpectation third = server.expectWithin(Duration.ofSeconds(6)).mid(0x42)
                .sincePrevious(Duration.ofSeconds(4), Duration.ofSeconds(4));
        assertEquals(Duration.ofSeconds(6), third.elapsed());
        String gap = failureOf(() -> third.sincePrevious(Duration.ofSeconds(2), Duration.ofSeconds(3)));
        assertTrue(gap.contains("expected a gap in [2000.000ms, 3000.000ms] since #2, but was 4000.000ms"), gap);

        String late = failureOf(() -> server.expectWithin(Duration.ofSeconds(7)));
        assertTrue(late.contains("expected a message within 7000.000ms, but none arrived"), late);
        server.expectWithin(Duration.ofSeconds(2)).mid(0x42).at(Duration.ofSeconds(14), Duration.ZERO);
    }

    @Test
    void markTimeMovesTheOrigin() {
        server.advance(Duration.ofSeconds(5)).markTime();
        assertEquals(Duration.ZERO, server.elapsed());
        client.non().get().mid(1).go();
        MessageExpectation e = server.expect().at(Duration.ZERO, Duration.ZERO);
        String first = failureOf(() -> e.sincePrevious(Duration.ZERO, Duration.ZERO));
        assertTrue(first.contains("this is the first one"), first);
    }

    @Test
    void capturedVariablesFeedLaterSteps() {
        // separate response with a MID and token the "endpoint" chose
        server.con().response(Code.CONTENT).mid(0x7001).token("beef").observe(3).payload("22.5").go();
        client.expect().type(Type.CON).storeMid("sepMid").storeToken("t").storeObserve("obs");
        assertEquals(0x7001, client.mid("sepMid"));
        assertEquals(Token.fromHex("beef"), client.token("t"));
        assertEquals(3, client.var("obs"));

        client.ack(client.mid("sepMid")).go();
        server.expect().emptyAck(0x7001);
        client.con().get().mid(2).token(client.token("t")).go();
        server.expect().token("beef");

        server.con().response(Code.CONTENT).mid(0x7001).token("beef").go();
        client.expect().sameMid("sepMid").sameToken("t");
        server.con().response(Code.CONTENT).mid(0x7002).token("bee0").go();
        MessageExpectation e = client.expect();
        assertTrue(failureOf(() -> e.sameMid("sepMid")).contains("expected mid 28673 (0x7001), but was 28674 (0x7002)"));
        assertTrue(failureOf(() -> e.sameToken("t")).contains("expected token beef, but was bee0"));

        String missing = failureOf(() -> client.mid("nope"));
        assertTrue(missing.contains("no variable \"nope\"; stored: ") && missing.contains("sepMid"), missing);
        assertTrue(failureOf(() -> client.mid("t")).contains("variable \"t\" holds beef, not a Integer"));
    }
}
