package io.stagecoach.examples.plugtest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.link.LinkFormat;
import io.stagecoach.core.link.WebLink;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Resources with state: /validate (§3.18), /create1 (§3.19), the observables (§3.9–3.13), discovery (§4). */
class PlugtestStateResourcesTest {

    private final PlugtestSim sim = new PlugtestSim();

    PlugtestStateResourcesTest() throws Exception {
    }

    @AfterEach
    void close() {
        sim.close();
    }

    @Test
    void validateAnswers203ForAMatchingEtagAndHonoursIfMatch() {
        CoapResponse first = sim.call(sim.client("/validate").getAsync());
        assertEquals(Code.CONTENT, first.code());
        byte[] etag = first.options().etags().get(0);
        assertTrue(etag.length >= 1 && etag.length <= 8, "ETag length " + etag.length);

        CoapResponse valid = sim.send("/validate", Code.GET, b -> {
            b.options().addEtag(new byte[] {9}).addEtag(etag);
            return b;
        });
        assertEquals(Code.VALID, valid.code(), "GET with the current ETag among two");
        assertArrayEquals(etag, valid.options().etags().get(0));
        assertEquals(0, valid.payload().length);

        CoapResponse wrongIfMatch = sim.send("/validate", Code.PUT, b -> {
            b.options().addIfMatch(new byte[] {1, 2, 3}).contentFormat(ContentFormat.TEXT_PLAIN);
            return b.payload("other");
        });
        assertEquals(Code.PRECONDITION_FAILED, wrongIfMatch.code(), "If-Match with a stale ETag");
        assertArrayEquals(first.payload(), sim.call(sim.client("/validate").getAsync()).payload(), "unchanged");

        CoapResponse updated = sim.send("/validate", Code.PUT, b -> {
            b.options().addIfMatch(etag).contentFormat(ContentFormat.TEXT_PLAIN);
            return b.payload("new value");
        });
        assertEquals(Code.CHANGED, updated.code(), "If-Match with the current ETag");
        byte[] newEtag = updated.options().etags().get(0);
        assertFalse(java.util.Arrays.equals(etag, newEtag), "ETag changes with the representation");
        CoapResponse after = sim.call(sim.client("/validate").getAsync());
        assertEquals("new value", after.payloadText());
        assertArrayEquals(newEtag, after.options().etags().get(0));

        CoapResponse emptyIfMatch = sim.send("/validate", Code.PUT, b -> {
            b.options().addIfMatch(new byte[0]).contentFormat(ContentFormat.TEXT_PLAIN);
            return b.payload("any");
        });
        assertEquals(Code.CHANGED, emptyIfMatch.code(), "an empty If-Match matches any representation");

        CoapResponse ifNoneMatch = sim.send("/validate", Code.PUT, b -> {
            b.options().ifNoneMatch(true).contentFormat(ContentFormat.TEXT_PLAIN);
            return b.payload("x");
        });
        assertEquals(Code.PRECONDITION_FAILED, ifNoneMatch.code(), "If-None-Match: the resource exists");
        assertEquals(Code.BAD_REQUEST, sim.send("/validate", Code.PUT, b -> b.payload("x")).code(), "no CF");
        assertEquals(Code.NOT_ACCEPTABLE, sim.call(sim.client("/validate").getAsync(ContentFormat.JSON)).code());

        assertEquals(Code.DELETED, sim.call(sim.client("/validate").deleteAsync()).code());
        assertArrayEquals(first.payload(), sim.call(sim.client("/validate").getAsync()).payload(), "reset by DELETE");
    }

    @Test
    void create1IsCreatedByPutAndAppearsInDiscoveryOnlyWhileItExists() {
        assertEquals(Code.NOT_FOUND, sim.call(sim.client("/create1").getAsync()).code());
        assertFalse(hrefs().contains("/create1"), "hidden before creation");
        assertEquals(Code.CREATED, sim.call(sim.client("/create1").putAsync("v1", ContentFormat.TEXT_PLAIN)).code());
        assertTrue(hrefs().contains("/create1"), "listed after creation");
        assertEquals("v1", sim.call(sim.client("/create1").getAsync()).payloadText());
        CoapResponse guarded = sim.send("/create1", Code.PUT, b -> {
            b.options().ifNoneMatch(true).contentFormat(ContentFormat.TEXT_PLAIN);
            return b.payload("v2");
        });
        assertEquals(Code.PRECONDITION_FAILED, guarded.code(), "If-None-Match on an existing /create1");
        assertEquals(Code.CHANGED, sim.call(sim.client("/create1").putAsync("v3", ContentFormat.TEXT_PLAIN)).code(), "replaced");
        assertEquals(Code.DELETED, sim.call(sim.client("/create1").deleteAsync()).code());
        assertEquals(Code.NOT_FOUND, sim.call(sim.client("/create1").getAsync()).code());
        assertFalse(hrefs().contains("/create1"), "hidden after DELETE");
    }

    @Test
    void obsShowsTheTimeWithMaxAge5() {
        CoapResponse r = sim.call(sim.client("/obs").getAsync());
        assertEquals("12:34:56", r.payloadText());
        assertEquals(5, r.options().maxAge());
        assertEquals(ContentFormat.TEXT_PLAIN, r.contentFormat());
        assertEquals(-1, r.options().observe(), "plain GET: no Observe option");
        assertEquals(Code.BAD_REQUEST, sim.send("/obs", Code.PUT, b -> b.payload("x")).code(), "PUT without CF");
    }

    @Test
    void obsNotifiesWithConEveryPeriodAndOnPutOfTheSameFormat() {
        Observer o = observe("/obs");
        assertEquals(List.of("12:34:56"), o.texts(), "registration answer");
        assertTrue(o.responses.get(0).options().observe() >= 0, "registration answer carries Observe");

        sim.clock.advance(PlugtestSim.PERIOD);
        assertEquals(List.of("12:34:56", "12:34:56"), o.texts(), "one notification per period");
        assertEquals(Type.CON, o.responses.get(1).advanced().type(), "/obs notifies with CON");
        assertTrue(o.responses.get(1).options().observe() > o.responses.get(0).options().observe(), "Observe increases");

        assertEquals(Code.CHANGED, sim.call(sim.client("/obs").putAsync("mine", ContentFormat.TEXT_PLAIN)).code());
        assertEquals("mine", o.texts().get(o.texts().size() - 1), "PUT of the same format notifies: " + o.texts());
        assertEquals(1, clock("obs").observerCount());
    }

    @Test
    void maxAgeCoversALongerPeriod() {
        ClockResource slow = new ClockResource("slow", true, false, PlugtestSim.WALL, Duration.ofMillis(7500));
        sim.server.add(slow);
        assertEquals(8, sim.call(sim.client("/slow").getAsync()).options().maxAge(), "P = 7.5 s: Max-Age 8");
    }

    @Test
    void obsNonNotifiesWithNon() {
        Observer o = observe("/obs-non");
        sim.clock.advance(PlugtestSim.PERIOD);
        assertEquals(2, o.responses.size(), o.texts().toString());
        assertEquals(Type.NON, o.responses.get(1).advanced().type(), "/obs-non notifies with NON");
    }

    @Test
    void obsPutOfAnotherFormatEndsObservationsWith406AndDeleteWith404() {
        Observer o = observe("/obs");
        assertEquals(Code.CHANGED, sim.call(sim.client("/obs").putAsync("{}", ContentFormat.JSON)).code());
        sim.clock.advance(Duration.ofMillis(100));
        CoapResponse last = o.responses.get(o.responses.size() - 1);
        assertEquals(Code.NOT_ACCEPTABLE, last.code(), "final notification: " + o.responses);
        assertEquals(-1, last.options().observe(), "the final notification has no Observe");
        assertEquals(0, clock("obs").observerCount());
        assertEquals(Code.NOT_ACCEPTABLE, sim.call(sim.client("/obs").getAsync(ContentFormat.TEXT_PLAIN)).code(), "Accept 0 vs JSON value");

        Observer again = observe("/obs");
        assertEquals(List.of("{}"), again.texts(), "registration works after the 4.06");
        assertEquals(Code.DELETED, sim.call(sim.client("/obs").deleteAsync()).code());
        sim.clock.advance(Duration.ofMillis(100));
        assertEquals(Code.NOT_FOUND, again.responses.get(again.responses.size() - 1).code(), "DELETE: final 4.04");
        assertEquals(0, clock("obs").observerCount());
        assertEquals(Code.CONTENT, sim.call(sim.client("/obs").getAsync()).code(), "/obs stays after DELETE");
    }

    @Test
    void obsLargeIs162BytesAndItsNotificationsArriveWhole() {
        sim.verified();
        CoapResponse r = sim.call(sim.client("/obs-large").getAsync());
        String expected = "-".repeat(64) + "\n12:34:56" + " ".repeat(24) + "\n" + "-".repeat(64);
        assertEquals(expected, r.payloadText());
        assertEquals(162, r.payload().length);
        assertEquals(3, sim.received.stream().filter(m -> m.options().block2() != null).count(), "3 blocks of 64");
        assertEquals(Code.METHOD_NOT_ALLOWED, sim.call(sim.client("/obs-large").deleteAsync()).code());

        Observer o = observe("/obs-large");
        sim.clock.advance(PlugtestSim.PERIOD);
        sim.clock.advance(Duration.ofMillis(200));
        assertEquals(List.of(expected, expected), o.texts(), "registration and one notification, each reassembled");
    }

    @Test
    void obsResetDropsEveryObservationSilentlyOnlyForTheSecret() {
        Observer obs = observe("/obs");
        Observer non = observe("/obs-non");
        assertEquals(Code.FORBIDDEN, sim.call(sim.client("/obs-reset").postAsync("open", ContentFormat.TEXT_PLAIN)).code());
        assertEquals(Code.FORBIDDEN, sim.call(sim.client("/obs-reset").postAsync("sesam", ContentFormat.TEXT_PLAIN)).code(),
                "a prefix of the secret");
        assertEquals(Code.FORBIDDEN, sim.call(sim.client("/obs-reset").postAsync("sesame!", ContentFormat.TEXT_PLAIN)).code(),
                "the secret and more");
        assertEquals(1, clock("obs").observerCount(), "wrong secret: nothing dropped");
        assertEquals(Code.CHANGED, sim.call(sim.client("/obs-reset").postAsync(PlugtestSim.OBS_RESET_SECRET,
                ContentFormat.TEXT_PLAIN)).code());
        for (String name : List.of("obs", "obs-non", "obs-large")) {
            assertEquals(0, clock(name).observerCount(), name);
        }
        sim.clock.advance(PlugtestSim.PERIOD);
        assertEquals(1, obs.responses.size(), "no notification after the reset: " + obs.texts());
        assertEquals(1, non.responses.size(), "no notification after the reset: " + non.texts());

        Observer again = observe("/obs");
        assertEquals(Code.CHANGED, sim.call(sim.client("/obs-reset?notfound").postAsync(PlugtestSim.OBS_RESET_SECRET,
                ContentFormat.TEXT_PLAIN)).code());
        sim.clock.advance(Duration.ofMillis(100));
        assertEquals(Code.NOT_FOUND, again.responses.get(again.responses.size() - 1).code(), "notfound: final 4.04");
    }

    /** Without a secret (the server's default) no payload resets anything, "sesame" included. */
    @Test
    void obsResetIsDisabledWithoutASecret() throws Exception {
        try (PlugtestSim open = new PlugtestSim(null)) {
            Observer obs = new Observer();
            open.client("/obs").observe(obs);
            open.clock.advance(Duration.ofMillis(500));
            assertEquals(1, obs.responses.size());
            for (String payload : List.of("sesame", "", "open")) {
                CoapResponse r = open.call(open.client("/obs-reset").postAsync(payload, ContentFormat.TEXT_PLAIN));
                assertEquals(Code.FORBIDDEN, r.code(), payload);
                assertEquals(ObsResetResource.DISABLED, r.payloadText());
            }
            ClockResource clockObs = (ClockResource) open.plugtest.resources().stream()
                    .filter(r -> r.name().equals("obs")).findFirst().orElseThrow();
            assertEquals(1, clockObs.observerCount(), "nothing dropped");
            open.clock.advance(PlugtestSim.PERIOD);
            assertEquals(2, obs.responses.size(), "the observer is still notified");
        }
        assertThrows(IllegalArgumentException.class, () -> Plugtest.builder().obsResetSecret(""));
    }

    /** Registers on {@code path} and waits for the registration answer. */
    private Observer observe(String path) {
        Observer o = new Observer();
        sim.client(path).observe(o);
        sim.clock.advance(Duration.ofMillis(500));
        assertFalse(o.responses.isEmpty(), "registration answered: " + sim.received);
        return o;
    }

    /** Collects the registration answer and every notification. */
    private static final class Observer implements CoapHandler {
        final List<CoapResponse> responses = new CopyOnWriteArrayList<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();

        @Override
        public void onLoad(CoapResponse response) {
            responses.add(response);
        }

        @Override
        public void onError(Throwable error) {
            errors.add(error);
        }

        List<String> texts() {
            return responses.stream().map(CoapResponse::payloadText).toList();
        }
    }

    @Test
    void discoveryListsTheDocumentsLinksWithTheirAttributes() {
        Map<String, WebLink> links = discover("").stream().collect(Collectors.toMap(WebLink::target, Function.identity()));
        for (String href : List.of("/test", "/seg1", "/seg1/seg2", "/seg1/seg2/seg3", "/query", "/separate", "/large",
                "/large-update", "/large-create", "/large-post", "/obs", "/obs-non", "/obs-large", "/obs-reset",
                "/location-query", "/multi-format", "/link1", "/link2", "/link3", "/path", "/path/sub1",
                "/path/sub2", "/path/sub3", "/validate")) {
            assertNotNull(links.get(href), "discovery lists " + href + ": " + links.keySet());
        }
        assertEquals(List.of("0"), links.get("/test").values("ct"));
        assertFalse(links.get("/test").has("rt") || links.get("/test").has("if") || links.get("/test").has("sz"));
        assertEquals(List.of("block"), links.get("/large").values("rt"));
        assertEquals(List.of("1280"), links.get("/large").values("sz"));
        assertTrue(links.get("/obs").has("obs"));
        assertEquals(List.of("observe"), links.get("/obs-non").values("rt"));
        assertEquals(List.of("0", "41", "50", "60"), links.get("/multi-format").values("ct"));
        assertEquals(List.of("Type1", "Type3"), links.get("/link3").values("rt"));
        assertEquals(List.of("foo"), links.get("/link3").values("if"));
        assertEquals(List.of("40"), links.get("/path").values("ct"));
        assertFalse(links.containsKey("/create1"));
    }

    @Test
    void discoveryFiltersByRtIfAndHref() {
        assertEquals(List.of("/link1", "/link3"), targets(discover("?rt=Type1")));
        assertEquals(List.of("/link1", "/link2"), targets(discover("?if=If*")));
        assertEquals(List.of("/link1", "/link2", "/link3"), targets(discover("?href=/link*")));
        assertTrue(targets(discover("?sz=*")).contains("/large"));
    }

    private List<WebLink> discover(String query) {
        CoapResponse r = sim.call(sim.client("/.well-known/core" + query).getAsync());
        assertEquals(Code.CONTENT, r.code());
        assertEquals(ContentFormat.LINK_FORMAT, r.contentFormat());
        return LinkFormat.parse(r.payloadText());
    }

    private List<String> hrefs() {
        return targets(discover(""));
    }

    private static List<String> targets(List<WebLink> links) {
        return links.stream().map(WebLink::target).sorted().toList();
    }

    private ClockResource clock(String name) {
        return (ClockResource) sim.plugtest.resources().stream().filter(r -> r.name().equals(name)).findFirst()
                .orElseThrow();
    }
}
