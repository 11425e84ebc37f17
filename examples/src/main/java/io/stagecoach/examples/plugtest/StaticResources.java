package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapResource;
import java.nio.charset.StandardCharsets;

/**
 * The plugtest resources without state: long paths (§3.2), {@code /query} (§3.3), {@code /large}
 * (§3.5), {@code /location-query} (§3.14), {@code /link1..3} (§3.16) and the {@code /path}
 * hierarchy (§3.17).
 */
final class StaticResources {

    private StaticResources() {
    }

    /** {@code /seg1/seg2/seg3}, each level answering GET with "Long path resource" and REQINFO. */
    static CoapResource seg1() {
        CoapResource seg3 = longPath("seg3");
        CoapResource seg2 = longPath("seg2").add(seg3);
        return longPath("seg1").add(seg2);
    }

    private static CoapResource longPath(String name) {
        return CoapResource.named(name).title("Long path resource").advertiseContentFormats(ContentFormat.TEXT_PLAIN)
                .onGet(ex -> ex.respond("Long path resource\n" + PlugtestText.reqInfo(ex.request())));
    }

    /** {@code /query}: REQINFO, then {@code "\n?"} and every Uri-Query joined by '&' (TD_COAP_CORE_13). */
    static CoapResource query() {
        return CoapResource.named("query").title("Resource accepting query parameters").advertiseContentFormats(ContentFormat.TEXT_PLAIN)
                .onGet(ex -> ex.respond(PlugtestText.reqInfo(ex.request()) + "\n?"
                        + String.join("&", ex.options().uriQuery())));
    }

    /** {@code /large}: the 1280-byte LARGE text, block-wise by the endpoint (TD_COAP_BLOCK_01..03). */
    static CoapResource large() {
        byte[] body = PlugtestText.LARGE.getBytes(StandardCharsets.US_ASCII);
        return CoapResource.named("large").title("Large resource").resourceType("block")
                .maxSizeEstimate(PlugtestText.LARGE_SIZE).advertiseContentFormats(ContentFormat.TEXT_PLAIN)
                .onGet(ex -> ex.respond(Code.CONTENT, body, ContentFormat.TEXT_PLAIN));
    }

    /** {@code /location-query}: POST answers 2.01 with Location-Query {@code first=1}, {@code second=2}. */
    static CoapResource locationQuery() {
        return CoapResource.named("location-query")
                .title("Perform POST transaction with responses containing several Location-Query options (CON mode)")
                .onPost(ex -> ex.respond(Code.CREATED, r -> r.locationQuery("first=1", "second=2")));
    }

    /** {@code /link1..3}: discovery targets with {@code if} and {@code rt}; GET answers the path. */
    static CoapResource[] links() {
        return new CoapResource[] {
            link("link1", "If1", "Type1", "Type2"),
            link("link2", "If2", "Type2", "Type3"),
            link("link3", "foo", "Type1", "Type3"),
        };
    }

    private static CoapResource link(String name, String iface, String... types) {
        return CoapResource.named(name).interfaceDescription(iface).resourceType(types).title("Link test resource")
                .onGet(ex -> ex.respond("/" + name));
    }

    /** {@code /path} listing its three children in link-format; each child answers its path. */
    static CoapResource path() {
        CoapResource path = CoapResource.named("path").title("Hierarchical link description entry")
                .advertiseContentFormats(ContentFormat.LINK_FORMAT);
        for (int i = 1; i <= 3; i++) {
            String name = "sub" + i;
            path.add(CoapResource.named(name).title("Hierarchical link description sub-resource")
                    .advertiseContentFormats(ContentFormat.TEXT_PLAIN).onGet(ex -> ex.respond("/path/" + name)));
        }
        byte[] listing = "</path/sub1>,</path/sub2>,</path/sub3>".getBytes(StandardCharsets.US_ASCII);
        return path.onGet(ex -> ex.respond(Code.CONTENT, listing, ContentFormat.LINK_FORMAT));
    }
}
