package io.stagecoach.core.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.stagecoach.core.network.EndpointCounters.Gauge;
import org.junit.jupiter.api.Test;

/**
 * Inputs the fuzzers found, each as a byte array with what broke. They also stay in the seed
 * directories as {@code crash-*} files, so Jazzer's regression mode replays them too.
 */
class FuzzFindingsTest {

    /**
     * Found by {@link EndpointFuzzTest} right after the observe layer landed: a NON GET /obs with
     * Observe=0 (record 1: {@code 51 01 1a1b 1c 60 53 "obs" 10}), then CON GETs. The registration
     * made an observe relation, which keeps its exchange open for as long as the observer is
     * there; the drain check expected 0 open exchanges and failed with
     * "exchanges left … exchanges=1 … observe_relations=1". Not a leak in the endpoint: a relation
     * lives until the observer goes away (RFC 7641 §3.6, §4.5). The target now checks that only
     * relations hold exchanges after the first drain, then sends a CON notification no one
     * acknowledges and checks that the relation and its exchange are gone after it times out.
     */
    static final byte[] NON_OBSERVE_REGISTRATION_KEEPS_EXCHANGE = {
            (byte) 0x04, (byte) 0x00, (byte) 0x0b, (byte) 0x51, (byte) 0x01, (byte) 0x1a, (byte) 0x1b, (byte) 0x1c, (byte) 0x60, (byte) 0x53, (byte) 0x6f, (byte) 0x62,
            (byte) 0x73, (byte) 0x10, (byte) 0x04, (byte) 0x00, (byte) 0x0b, (byte) 0x41, (byte) 0x01, (byte) 0x1a, (byte) 0x1b, (byte) 0x1c, (byte) 0x60, (byte) 0x68,
            (byte) 0x65, (byte) 0x6c, (byte) 0x6c, (byte) 0x6f, (byte) 0xde, (byte) 0x04, (byte) 0x00, (byte) 0x0b, (byte) 0x41, (byte) 0x01, (byte) 0x1a, (byte) 0x1b,
            (byte) 0x1c, (byte) 0x60, (byte) 0x53, (byte) 0x6f, (byte) 0x62, (byte) 0x73, (byte) 0x10, (byte) 0x04, (byte) 0x00, (byte) 0x0b, (byte) 0x41, (byte) 0x01,
            (byte) 0x1a, (byte) 0x1b, (byte) 0x1c, (byte) 0x60, (byte) 0x53, (byte) 0x6f, (byte) 0x62, (byte) 0x73, (byte) 0x10,
    };

    @Test
    void nonObserveRegistrationEndsWhenNotificationsGoUnanswered() {
        FuzzInput in = FuzzInput.decode(NON_OBSERVE_REGISTRATION_KEEPS_EXCHANGE);
        try (FuzzedServer s = new FuzzedServer()) {
            for (FuzzInput.Datagram d : in.datagrams()) {
                s.receive(d.bytes(), d.peer());
                s.clock.advance(d.then());
                EndpointFuzzTest.assertWithinCaps(s);
            }
            assertEquals(1, s.endpoint.counters().get(Gauge.OBSERVE_RELATIONS), "the NON registration was accepted");
            EndpointFuzzTest.drain(s);
        }
    }
}
