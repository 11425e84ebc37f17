package io.stagecoach.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Request;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Exchange#executeWith}, the task-free form of {@link Exchange#execute} the receive path uses. */
class ExchangeExecuteWithTest {

    private final Exchange exchange = new Exchange(Exchange.Origin.REMOTE, Request.get().build(),
            EndpointContext.of(new InetSocketAddress("10.0.0.2", 40000)), 0, null);

    @Test
    void holdsTheExchangeWhileTheConsumerRunsAndIsReentrant() {
        List<String> seen = new ArrayList<>();
        exchange.executeWith(ex -> {
            assertSame(exchange, ex, "the consumer gets the exchange");
            seen.add("outer owned=" + ex.isOwned());
            ex.execute(() -> seen.add("inner owned=" + exchange.isOwned()));
            seen.add("after inner owned=" + ex.isOwned());
        });
        assertEquals(List.of("outer owned=true", "inner owned=true", "after inner owned=true"), seen);
        assertFalse(exchange.isOwned(), "released after the consumer returned");
    }

    @Test
    void releasesTheExchangeWhenTheConsumerThrows() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> exchange.executeWith(ex -> {
                    throw new IllegalStateException("layer failed");
                }));
        assertEquals("layer failed", e.getMessage());
        assertFalse(exchange.isOwned(), "owner restored after the throw");
        assertThrows(IllegalStateException.class, exchange::assertOwned, "outside execute again");
        exchange.execute(() -> assertTrue(exchange.isOwned()));
    }
}
