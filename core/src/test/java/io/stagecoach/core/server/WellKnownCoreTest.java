package io.stagecoach.core.server;

import static io.stagecoach.core.server.Requests.exchange;
import static io.stagecoach.core.server.Requests.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.link.LinkFormat;
import io.stagecoach.core.link.WebLink;
import io.stagecoach.core.network.Exchange;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Discovery against the ETSI plugtest resource set (shared/conformance/plugtest-resources.md
 * §3, §3.16, §3.17, §4), through the deliverer as a client would see it.
 */
class WellKnownCoreTest {

    private final ResourceTree tree = new ResourceTree();
    private final FakeResponder responder = new FakeResponder();
    private final ServerMessageDeliverer deliverer = new ServerMessageDeliverer(tree, responder, 2, List.of(), null, true);
    private final CoapResource create1 = CoapResource.named("create1").setVisible(false);

    WellKnownCoreTest() {
        String block = "block";
        String observe = "observe";
        tree.add(
                CoapResource.named("test").title("Default test resource").contentFormats(ContentFormat.TEXT_PLAIN),
                CoapResource.named("seg1").title("Long path resource").contentFormats(ContentFormat.TEXT_PLAIN).add(
                        CoapResource.named("seg2").title("Long path resource").contentFormats(ContentFormat.TEXT_PLAIN).add(
                                CoapResource.named("seg3").title("Long path resource").contentFormats(ContentFormat.TEXT_PLAIN))),
                CoapResource.named("query").title("Resource accepting query parameters").contentFormats(ContentFormat.TEXT_PLAIN),
                CoapResource.named("separate").contentFormats(ContentFormat.TEXT_PLAIN),
                CoapResource.named("large").title("Large resource").resourceType(block).maxSizeEstimate(1280)
                        .contentFormats(ContentFormat.TEXT_PLAIN),
                CoapResource.named("large-update").resourceType(block).maxSizeEstimate(1280),
                CoapResource.named("large-create").resourceType(block).contentFormats(ContentFormat.LINK_FORMAT),
                CoapResource.named("large-post").resourceType(block),
                CoapResource.named("obs").resourceType(observe).setObservable(true).contentFormats(ContentFormat.TEXT_PLAIN),
                CoapResource.named("obs-non").resourceType(observe).setObservable(true).contentFormats(ContentFormat.TEXT_PLAIN),
                CoapResource.named("obs-large").resourceType(observe).setObservable(true).contentFormats(ContentFormat.TEXT_PLAIN),
                CoapResource.named("obs-reset"),
                CoapResource.named("location-query"),
                CoapResource.named("multi-format").contentFormats(ContentFormat.TEXT_PLAIN, ContentFormat.XML, ContentFormat.JSON, ContentFormat.CBOR),
                CoapResource.named("link1").interfaceDescription("If1").resourceType("Type1", "Type2")
                        .title("Link test resource"),
                CoapResource.named("link2").interfaceDescription("If2").resourceType("Type2", "Type3")
                        .title("Link test resource"),
                CoapResource.named("link3").interfaceDescription("foo").resourceType("Type1", "Type3")
                        .title("Link test resource"),
                CoapResource.named("path").contentFormats(ContentFormat.LINK_FORMAT).title("Hierarchical link description entry").add(
                        CoapResource.named("sub1").contentFormats(ContentFormat.TEXT_PLAIN).title("Hierarchical link description sub-resource"),
                        CoapResource.named("sub2").contentFormats(ContentFormat.TEXT_PLAIN).title("Hierarchical link description sub-resource"),
                        CoapResource.named("sub3").contentFormats(ContentFormat.TEXT_PLAIN).title("Hierarchical link description sub-resource")),
                CoapResource.named("validate").title("Resource which varies"),
                create1);
        WellKnownCoreResource.install(tree.root());
    }

    /** GET /.well-known/core with {@code query} arguments; returns the parsed link targets. */
    private List<String> discover(String... query) {
        Request.Builder b = request(Code.GET, "/.well-known/core");
        b.options().uriQuery(List.of(query));
        Exchange ex = exchange(b.build());
        deliverer.deliverRequest(ex, ex.request());
        Response r = responder.nextResponse();
        assertEquals(Code.CONTENT, r.code(), "GET /.well-known/core?" + String.join("&", query));
        assertEquals(40, r.options().contentFormat(), "application/link-format");
        return LinkFormat.parse(r.payloadString()).stream().map(WebLink::target).toList();
    }

    @Test
    void unfilteredListsEveryVisibleResourceDepthFirstInPathOrder() {
        List<String> all = discover();
        assertEquals(List.of("/large", "/large-create", "/large-post", "/large-update", "/link1", "/link2", "/link3",
                "/location-query", "/multi-format", "/obs", "/obs-large", "/obs-non", "/obs-reset", "/path",
                "/path/sub1", "/path/sub2", "/path/sub3", "/query", "/seg1", "/seg1/seg2", "/seg1/seg2/seg3",
                "/separate", "/test", "/validate"), all);
        assertFalse(all.contains("/create1"), "hidden until created");
        assertFalse(all.contains("/.well-known/core"), "discovery resource is not listed");
    }

    @Test
    void attributesAreSerializedAsSection4Requires() {
        Exchange ex = exchange(Code.GET, "/.well-known/core");
        deliverer.deliverRequest(ex, ex.request());
        String body = responder.nextResponse().payloadString();
        assertTrue(body.contains("</large>;title=\"Large resource\";rt=\"block\";sz=1280;ct=0"), body);
        assertTrue(body.contains("</obs>;rt=\"observe\";obs;ct=0"), body);
        assertTrue(body.contains("</multi-format>;ct=\"0 41 50 60\""), body);
        assertTrue(body.contains("</link1>;if=\"If1\";rt=\"Type1 Type2\";title=\"Link test resource\""), body);
        assertTrue(body.contains("</test>;title=\"Default test resource\";ct=0"), body);
    }

    @Test
    void rtFilterMatchesAnyOneOfTheSpaceSeparatedValues() {
        assertEquals(List.of("/link1", "/link3"), discover("rt=Type1"));
        assertEquals(List.of("/link1", "/link2"), discover("rt=Type2"));
    }

    @Test
    void starSelectsLinksHavingTheAttribute() {
        assertEquals(List.of("/large", "/large-create", "/large-post", "/large-update", "/link1", "/link2", "/link3",
                "/obs", "/obs-large", "/obs-non"), discover("rt=*"));
        assertEquals(List.of("/large", "/large-update"), discover("sz=*"));
        assertEquals(List.of("/obs", "/obs-large", "/obs-non"), discover("obs=*"));
        assertEquals(List.of("/obs", "/obs-large", "/obs-non"), discover("obs"), "bare name: has the flag");
    }

    @Test
    void ifPrefixMatch() {
        assertEquals(List.of("/link1", "/link2"), discover("if=If*"));
        assertEquals(List.of("/link3"), discover("if=foo"));
    }

    @Test
    void hrefExactAndPrefix() {
        assertEquals(List.of("/link1"), discover("href=/link1"));
        assertEquals(List.of("/link1", "/link2", "/link3"), discover("href=/link*"));
        assertEquals(List.of("/path", "/path/sub1", "/path/sub2", "/path/sub3"), discover("href=/path*"));
        assertEquals(List.of(), discover("href=link1"), "href compares the whole target");
    }

    @Test
    void ctMatchesSingleAndMultiValuedLinks() {
        assertEquals(List.of("/large-create", "/path"), discover("ct=40"));
        assertEquals(List.of("/multi-format"), discover("ct=41"));
    }

    @Test
    void titleAndArbitraryAttributes() {
        assertEquals(List.of("/link1", "/link2", "/link3"), discover("title=Link test resource"));
        assertEquals(List.of("/path"), discover("title=Hierarchical link description entry"));
        assertEquals(List.of("/large", "/large-update"), discover("sz=1280"));
        assertEquals(List.of(), discover("foo=*"), "nobody has foo");
        create1.attribute("foo", "bar").setVisible(true);
        assertEquals(List.of("/create1"), discover("foo=ba*"));
    }

    @Test
    void severalQueryArgumentsAreAnded() {
        assertEquals(List.of("/link3"), discover("rt=Type1", "if=foo"));
        assertEquals(List.of("/link1", "/link2"), discover("rt=Type2", "if=If*"));
        assertEquals(List.of(), discover("rt=Type3", "if=If1"));
    }

    @Test
    void hiddenResourceAppearsOnceVisibleAndDisappearsOnDelete() {
        create1.setVisible(true);
        assertTrue(discover().contains("/create1"));
        create1.delete();
        assertFalse(discover().contains("/create1"));
    }

    @Test
    void otherMethodsAre405AndOtherAcceptIs406() {
        Exchange post = exchange(Code.POST, "/.well-known/core");
        deliverer.deliverRequest(post, post.request());
        assertEquals(Code.METHOD_NOT_ALLOWED, responder.nextResponse().code(), "POST /.well-known/core");

        Request.Builder b = request(Code.GET, "/.well-known/core");
        b.options().accept(0);
        Exchange text = exchange(b.build());
        deliverer.deliverRequest(text, text.request());
        assertEquals(Code.NOT_ACCEPTABLE, responder.nextResponse().code(), "GET Accept text/plain");
    }
}
