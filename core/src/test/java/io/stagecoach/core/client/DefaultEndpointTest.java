package io.stagecoach.core.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import org.junit.jupiter.api.Test;

/** The shared default client endpoint: created lazily, shared, and gone after shutdown. */
class DefaultEndpointTest {

    @Test
    void clientsShareTheDefaultEndpointUntilShutdown() {
        CoapServer server = new CoapServer(0).add(CoapResource.named("hello").onGet(ex -> ex.respond("world")));
        server.start();
        try {
            String uri = "coap://localhost:" + server.port() + "/hello";
            CoapClient a = new CoapClient(uri);
            CoapClient b = new CoapClient(uri);
            assertEquals("world", a.get().payloadText(), "GET " + uri + " through the default endpoint (host name resolved)");
            CoapEndpoint shared = a.endpoint();
            assertSame(shared, b.endpoint());
            CoapClient.shutdownDefaultEndpoint();
            assertEquals("world", b.get().payloadText(), "a fresh default endpoint after shutdown");
            assertNotSame(shared, b.endpoint());
        } finally {
            CoapClient.shutdownDefaultEndpoint();
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }
}
