package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The exchange's folded fields: origin, outcome, completion hooks and layer state. */
class ExchangeStateTest {

    private static final EndpointContext PEER = EndpointContext.of(new InetSocketAddress("10.0.0.2", 40000));
    private static final Exchange.Slot<String> FIRST = new Exchange.Slot<>("first", String.class);
    private static final Exchange.Slot<String> SECOND = new Exchange.Slot<>("second", String.class);

    private static Exchange remote() {
        return new Exchange(Exchange.Origin.REMOTE, Request.get().build(), PEER, 0, null);
    }

    @Test
    void originFollowsTheConstructorWithOrWithoutAListener() {
        assertFalse(remote().isLocal());
        assertNull(remote().listener());
        Exchange silent = new Exchange(Exchange.Origin.LOCAL, Request.get().build(), PEER, 0, null);
        assertTrue(silent.isLocal());
        assertNull(silent.listener(), "a LOCAL exchange without a listener reports none");
        assertTrue(silent.fail(new IllegalStateException("x")), "and fails without one");
        List<Throwable> heard = new ArrayList<>();
        Exchange.Listener listener = new Exchange.Listener() {
            @Override
            public void onResponse(Exchange exchange, Response response) {
            }

            @Override
            public void onFailure(Exchange exchange, Throwable cause) {
                heard.add(cause);
            }
        };
        Exchange local = new Exchange(Exchange.Origin.LOCAL, Request.get().build(), PEER, 0, listener);
        assertTrue(local.isLocal());
        assertSame(listener, local.listener());
        IllegalStateException cause = new IllegalStateException("timeout");
        local.fail(cause);
        assertEquals(List.of(cause), heard);
        assertThrows(IllegalArgumentException.class,
                () -> new Exchange(Exchange.Origin.REMOTE, Request.get().build(), PEER, 0, listener));
    }

    @Test
    void outcomeIsOpenCompleteOrFailedAndOnlyTheFirstCounts() {
        Exchange done = remote();
        assertFalse(done.isComplete());
        assertNull(done.failure());
        assertTrue(done.complete());
        assertTrue(done.isComplete());
        assertNull(done.failure(), "completed normally");
        assertFalse(done.fail(new IllegalStateException("late")));
        assertNull(done.failure(), "a later failure does not count");

        Exchange failed = remote();
        IllegalStateException cause = new IllegalStateException("rst");
        assertTrue(failed.fail(cause));
        assertTrue(failed.isComplete());
        assertSame(cause, failed.failure());
        assertFalse(failed.complete());
        assertSame(cause, failed.failure());
    }

    @Test
    void hooksRunOnceInOrderBesideTheLayersState() {
        Exchange exchange = remote();
        List<Integer> ran = new ArrayList<>();
        exchange.execute(() -> {
            exchange.set(SECOND, "s"); // state first: the array then holds the hooks as well
            for (int i = 0; i < 11; i++) { // more than the first hooks array holds
                int n = i;
                exchange.whenComplete(() -> ran.add(n));
            }
            exchange.set(FIRST, "f");
            assertEquals("f", exchange.get(FIRST));
            assertEquals("s", exchange.get(SECOND));
        });
        assertTrue(ran.isEmpty());
        exchange.complete();
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), ran);
        exchange.complete();
        assertEquals(11, ran.size(), "hooks run once");
        exchange.whenComplete(() -> ran.add(99));
        assertEquals(99, ran.get(11), "a hook after completion runs at once");
        exchange.execute(() -> {
            assertEquals("f", exchange.get(FIRST), "layer state outlives the hooks");
            exchange.set(FIRST, null);
            assertNull(exchange.get(FIRST));
        });
    }

    @Test
    void aHookBeforeAnyStateLeavesTheSlotsEmpty() {
        Exchange exchange = remote();
        List<String> ran = new ArrayList<>();
        exchange.whenComplete(() -> ran.add("hook"));
        exchange.execute(() -> {
            assertNull(exchange.get(FIRST));
            assertNull(exchange.get(SECOND));
            exchange.set(SECOND, "s");
        });
        exchange.fail(new IllegalStateException("x"));
        assertEquals(List.of("hook"), ran);
        assertThrows(NullPointerException.class, () -> remote().whenComplete(null));
    }

    @Test
    void theTransportHookRunsFirstOnceAndStaysFindable() {
        Exchange exchange = remote();
        List<String> ran = new ArrayList<>();
        exchange.whenComplete(() -> ran.add("layer"));
        Runnable transport = () -> ran.add("transport");
        exchange.setTransportHook(transport);
        assertSame(transport, exchange.transportHook());
        assertThrows(IllegalStateException.class, () -> exchange.setTransportHook(() -> ran.add("second")));
        assertTrue(exchange.complete());
        assertFalse(exchange.fail(new IllegalStateException("late")));
        assertEquals(List.of("transport", "layer"), ran, "before the layers' hooks, once");
        assertSame(transport, exchange.transportHook(), "the transport still finds its state");
        assertFalse(exchange.release(), "an exchange with a transport hook is not reused");

        Exchange done = remote();
        done.complete();
        done.setTransportHook(() -> ran.add("late"));
        assertEquals("late", ran.get(ran.size() - 1), "runs at once on a completed exchange");
    }
}
