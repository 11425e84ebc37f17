package io.stagecoach.examples;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapResponse;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The three ways to call a resource: synchronous, with a {@link CoapHandler} callback, and with a
 * {@link CompletableFuture}. Run against {@link HelloWorldServer}:
 * {@code HelloWorldClient coap://localhost:5683/helloWorld}.
 */
public final class HelloWorldClient {

    private HelloWorldClient() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args.length > 0 ? args[0] : "coap://localhost:5683/helloWorld";
        try {
            run(uri, System.out);
        } finally {
            CoapClient.shutdownDefaultEndpoint(); // the shared client endpoint's threads
        }
    }

    /** Calls {@code uri} three ways, printing each answer; returns the three payloads. */
    static String[] run(String uri, PrintStream out) throws Exception {
        CoapClient client = new CoapClient(uri);

        // 1. synchronous: blocks until the response, or throws (CoapTimeoutException, ...)
        CoapResponse sync = client.get();
        out.println("sync:   " + sync.code() + " " + sync.payloadText());

        // 2. callback: onLoad or onError runs on a protocol thread; do not block there
        CountDownLatch done = new CountDownLatch(1);
        String[] viaHandler = new String[1];
        client.get(new CoapHandler() {
            @Override
            public void onLoad(CoapResponse response) {
                viaHandler[0] = response.payloadText();
                done.countDown();
            }

            @Override
            public void onError(Throwable error) {
                viaHandler[0] = "error: " + error;
                done.countDown();
            }
        });
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the handler was not called");
        }
        out.println("async:  " + viaHandler[0]);

        // 3. CompletableFuture: compose, then join where a result is needed
        CompletableFuture<String> text = client.getAsync().thenApply(CoapResponse::payloadText);
        String viaFuture = text.get(30, TimeUnit.SECONDS);
        out.println("future: " + viaFuture);
        return new String[] {sync.payloadText(), viaHandler[0], viaFuture};
    }
}
