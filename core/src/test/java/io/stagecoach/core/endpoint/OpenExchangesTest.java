package io.stagecoach.core.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenExchangesTest {

    private static Exchange exchange() {
        return new Exchange(Exchange.Origin.REMOTE, Request.get().build(),
                EndpointContext.of(new InetSocketAddress("127.0.0.1", 5683)), 0L, null);
    }

    @Test
    void removesFromHeadMiddleAndTailAndKeepsTheRest() {
        OpenExchanges open = new OpenExchanges();
        Exchange a = exchange();
        Exchange b = exchange();
        Exchange c = exchange();
        Exchange d = exchange();
        OpenExchanges.Entry ea = open.add(a);
        OpenExchanges.Entry eb = open.add(b);
        OpenExchanges.Entry ec = open.add(c);
        OpenExchanges.Entry ed = open.add(d);
        assertEquals(List.of(d, c, b, a), open.snapshot());

        open.remove(eb); // middle
        assertEquals(List.of(d, c, a), open.snapshot());
        open.remove(ed); // head
        assertEquals(List.of(c, a), open.snapshot());
        open.remove(ea); // tail
        assertEquals(List.of(c), open.snapshot());
        assertEquals(1, open.size());
        assertFalse(open.isEmpty());
        open.remove(ec);
        assertTrue(open.isEmpty());
        assertEquals(List.of(), open.snapshot());
    }

    @Test
    void aSecondRemoveOfTheSameEntryChangesNothing() {
        OpenExchanges open = new OpenExchanges();
        Exchange a = exchange();
        Exchange b = exchange();
        OpenExchanges.Entry ea = open.add(a);
        open.add(b);
        open.remove(ea);
        open.remove(ea); // a completion hook that ran twice must not unlink b
        assertEquals(List.of(b), open.snapshot());
        assertEquals(1, open.size());
    }

    @Test
    void theSameExchangeTwiceIsTwoEntries() {
        OpenExchanges open = new OpenExchanges();
        Exchange a = exchange();
        OpenExchanges.Entry first = open.add(a);
        open.add(a);
        open.remove(first);
        assertEquals(List.of(a), open.snapshot());
    }
}
