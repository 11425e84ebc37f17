package io.stagecoach.core.client;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapExchange;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The resource set the client/server tests run against, one resource per response-code path,
 * plus the link-test resources of the ETSI plugtest (link1..link3) for discovery.
 */
final class TestResources {

    /** Exchanges accepted by /separate, waiting for the test to answer them. */
    final LinkedBlockingQueue<CoapExchange> separate = new LinkedBlockingQueue<>();
    /** Thread names the /threads/... handlers ran on. */
    final List<String> handlerThreads = new CopyOnWriteArrayList<>();
    private final AtomicInteger created = new AtomicInteger();
    private volatile String stored = "initial";
    final CoapResource items = CoapResource.named("items");

    void installOn(CoapServer server) {
        items.onPost(ex -> {
            String id = Integer.toString(created.incrementAndGet());
            String body = ex.payloadText();
            items.add(CoapResource.named(id)
                    .onGet(g -> g.respond(body))
                    .onDelete(d -> {
                        d.resource().parent().removeChild(d.resource());
                        d.respond(Code.DELETED);
                    }));
            ex.respond(Code.CREATED, r -> r.locationPath("items", id));
        });
        server.add(
                CoapResource.named("hello").onGet(ex -> ex.respond("world")),
                items,
                CoapResource.named("store")
                        .onGet(ex -> ex.respond(stored))
                        .onPut(ex -> {
                            stored = ex.payloadText();
                            ex.respond(Code.CHANGED);
                        })
                        .onDelete(ex -> {
                            stored = "";
                            ex.respond(Code.DELETED);
                        })
                        .onFetch(ex -> ex.respond(Code.CONTENT, "fetched:" + ex.payloadText()))
                        .onPatch(ex -> {
                            stored = stored + ex.payloadText();
                            ex.respond(Code.CHANGED);
                        })
                        .onIpatch(ex -> {
                            stored = ex.payloadText();
                            ex.respond(Code.CHANGED);
                        }),
                CoapResource.named("json").contentFormats(ContentFormat.JSON)
                        .onGet(ex -> ex.respond(Code.CONTENT, "{}".getBytes(), ContentFormat.JSON)),
                CoapResource.named("boom").onGet(ex -> {
                    throw new IllegalStateException("sensor unplugged");
                }),
                CoapResource.named("separate").onGet(ex -> {
                    ex.accept();
                    separate.add(ex);
                }),
                CoapResource.named("silent").onGet(ex -> { }),
                CoapResource.named("where").onGet(ex -> {
                    handlerThreads.add(Thread.currentThread().getName());
                    ex.respond(Thread.currentThread().getName());
                }),
                CoapResource.named("link1").interfaceDescription("If1").resourceType("Type1", "Type2")
                        .title("Link test resource"),
                CoapResource.named("link2").interfaceDescription("If2").resourceType("Type2", "Type3")
                        .title("Link test resource"),
                CoapResource.named("link3").interfaceDescription("foo").resourceType("Type1", "Type3")
                        .title("Link test resource"),
                CoapResource.named("sized").maxSizeEstimate(1280).onGet(ex -> ex.respond("big")),
                CoapResource.named("path").advertiseContentFormats(ContentFormat.LINK_FORMAT).add(CoapResource.named("sub1")));
    }
}
