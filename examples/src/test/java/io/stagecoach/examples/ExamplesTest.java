package io.stagecoach.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each example against an in-process server on a free port. */
class ExamplesTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @AfterEach
    void noThreadLeft() {
        CoapClient.shutdownDefaultEndpoint();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void helloWorldClientCallsHelloWorldServerThreeWays() throws Exception {
        CoapServer server = HelloWorldServer.create(0).start();
        try {
            String[] got = HelloWorldClient.run("coap://localhost:" + server.port() + "/helloWorld", out);
            assertArrayEquals(new String[] {"Hello World!", "Hello World!", "Hello World!"}, got,
                    "sync, handler and future answers; printed:\n" + bytes);
            assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("sync:   2.05"), bytes.toString());
        } finally {
            server.destroy();
        }
    }

    @Test
    void criticalSectionLosesNoUpdateUnderConcurrentPosts() {
        CriticalSectionServer s = new CriticalSectionServer(0).start();
        try {
            CoapClient counter = new CoapClient("coap://127.0.0.1:" + s.server().port() + "/counter");
            List<CompletableFuture<CoapResponse>> posts = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                posts.add(counter.postAsync("", ContentFormat.TEXT_PLAIN));
            }
            Set<String> values = new HashSet<>();
            for (CompletableFuture<CoapResponse> p : posts) {
                CoapResponse r = p.join();
                assertEquals(Code.CHANGED, r.code());
                values.add(r.payloadText());
            }
            assertEquals(40, values.size(), "40 POSTs saw 40 distinct counts: no lost update");
            String read = counter.get().payloadText();
            assertTrue(read.startsWith("40 on stagecoach-resource-counter-"), "GET ran on the resource's thread: " + read);
            CoapClient reset = new CoapClient("coap://127.0.0.1:" + s.server().port() + "/counter/reset");
            assertEquals(Code.CHANGED, reset.post("", ContentFormat.TEXT_PLAIN).code());
            assertTrue(counter.get().payloadText().startsWith("0 on stagecoach-resource-counter-"),
                    "/counter/reset inherited the executor and reset the count");
        } finally {
            s.destroy();
        }
    }

    @Test
    void sealingExampleRunsAndListsItsLayer() {
        assertEquals("hello", SealingLayerExample.run(out));
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains(SealingLayerExample.LAYER_NAME), "layer listed: " + bytes);
    }
}
