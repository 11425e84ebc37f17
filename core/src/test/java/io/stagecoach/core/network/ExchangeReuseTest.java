package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Code;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link Exchange#release()}, {@link Exchange#recycle()} and {@link Exchange#remote}: when an exchange is reused. */
class ExchangeReuseTest {

    private static final Exchange.Slot<String> NOTE = new Exchange.Slot<>("reuse-test-note", String.class);
    private final EndpointContext alice = EndpointContext.of(new InetSocketAddress("10.0.0.2", 40000));
    private final EndpointContext bob = EndpointContext.of(new InetSocketAddress("10.0.0.3", 40001));

    @BeforeEach
    void noSpareLeftByAnotherTest() {
        Exchange.remote(request(0), alice, 0); // takes whatever this thread recycled before
    }

    private static Request request(int mid) {
        return Request.get().mid(mid).build();
    }

    /** Completes {@code e} as the stack does for a piggybacked answer, then lets the server release it. */
    private static boolean answerAndRelease(Exchange e) {
        boolean[] released = new boolean[1];
        e.execute(() -> {
            e.setCurrentResponse(Response.builder(Code.CONTENT).build());
            e.addSentBytes(21);
            e.complete();
            released[0] = e.release();
        });
        return released[0];
    }

    @Test
    void aReleasedExchangeServesTheNextRequestOfItsThreadAsNew() {
        Exchange first = Exchange.remote(request(1), alice, 100);
        first.setRequestBytes(18);
        assertTrue(answerAndRelease(first));
        assertTrue(first.isComplete(), "released is still complete: a late answer finds it done");
        assertTrue(first.recycle());

        Request second = request(2);
        Exchange next = Exchange.remote(second, bob, 200);
        assertSame(first, next, "reused");
        assertFalse(next.isComplete(), "open again");
        assertNull(next.failure());
        assertSame(second, next.request());
        assertSame(second, next.currentRequest());
        assertNull(next.currentResponse(), "no answer of the previous request");
        assertEquals(bob, next.peer());
        assertEquals(200, next.createdNanos());
        assertEquals(0, next.requestBytes());
        assertEquals(0, next.sentBytes());
        assertFalse(next.isLocal());
        next.execute(() -> assertNull(next.get(NOTE)));
        AtomicInteger hooks = new AtomicInteger();
        next.whenComplete(hooks::incrementAndGet);
        assertEquals(0, hooks.get(), "a hook of the new request waits for its completion");
        next.execute(next::complete);
        assertEquals(1, hooks.get());

        assertNotSame(next, Exchange.remote(request(3), alice, 0), "handed out once only");
    }

    @Test
    void withoutRecycleTheThreadGetsANewExchange() {
        Exchange first = Exchange.remote(request(1), alice, 0);
        assertTrue(answerAndRelease(first));
        assertNotSame(first, Exchange.remote(request(2), alice, 0), "released but not recycled: not reused");
    }

    @Test
    void releaseRefusesAnOpenFailedLocalOrLayerHeldExchange() {
        Exchange open = Exchange.remote(request(1), alice, 0);
        open.execute(() -> assertFalse(open.release(), "open"));
        assertFalse(open.recycle());

        Exchange failed = Exchange.remote(request(2), alice, 0);
        failed.execute(() -> {
            failed.fail(new ExchangeFailedException("stopped"));
            assertFalse(failed.release(), "failed");
        });

        Exchange local = new Exchange(Exchange.Origin.LOCAL, request(3), alice, 0, null);
        local.execute(() -> {
            local.complete();
            assertFalse(local.release(), "this endpoint's own request");
        });

        Exchange withState = Exchange.remote(request(4), alice, 0);
        withState.execute(() -> {
            withState.set(NOTE, "a layer keeps this exchange");
            withState.complete();
            assertFalse(withState.release(), "a layer keeps state in it");
        });

        Exchange hooked = Exchange.remote(request(5), alice, 0);
        hooked.whenComplete(() -> { });
        hooked.execute(() -> {
            hooked.complete();
            assertFalse(hooked.release(), "a completion hook was registered");
        });

        Exchange fresh = Exchange.remote(request(6), alice, 0);
        for (Exchange e : new Exchange[] {open, failed, local, withState, hooked}) {
            assertNotSame(e, fresh);
        }
    }

    @Test
    void stateSetAfterTheReleaseOrARetainKeepsItOutOfReuse() {
        Exchange late = Exchange.remote(request(1), alice, 0);
        assertTrue(answerAndRelease(late));
        late.execute(() -> late.set(NOTE, "set on the way back down the stack"));
        assertFalse(late.recycle(), "a layer kept state after the release");

        Exchange retained = Exchange.remote(request(2), alice, 0);
        assertTrue(answerAndRelease(retained));
        retained.retain();
        assertTrue(retained.isComplete());
        assertFalse(retained.recycle(), "retained");
        assertNotSame(retained, Exchange.remote(request(3), alice, 0));
    }

    @Test
    void aRecycledExchangeIsNotHandedToAnotherThread() throws Exception {
        Exchange first = Exchange.remote(request(1), alice, 0);
        assertTrue(answerAndRelease(first));
        assertTrue(first.recycle());
        Exchange elsewhere = CompletableFuture.supplyAsync(() -> Exchange.remote(request(2), bob, 0)).get();
        assertNotSame(first, elsewhere, "the spare is per thread");
        assertSame(first, Exchange.remote(request(3), alice, 0));
    }
}
