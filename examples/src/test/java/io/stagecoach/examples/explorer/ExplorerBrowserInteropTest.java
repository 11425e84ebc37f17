package io.stagecoach.examples.explorer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.config.CoapConfig;
import io.stagecoach.core.interop.InteropPeers;
import io.stagecoach.core.interop.Peer;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import io.stagecoach.examples.plugtest.Plugtest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The explorer page in a real browser (headless Chromium through chromedriver) against a server
 * on a loopback port: discovery into a tree with link attributes, a PUT the server receives and
 * whose 2.04 the page shows with its options, an Observe whose notifications the live view and
 * chart show, block-wise bodies both ways, and server data shown as text, never run.
 *
 * <p>Chromium and chromedriver are Debian's {@code chromium} and {@code chromium-driver}
 * (.ci/install-interop-peers); missing, the test is skipped on a developer machine and fails
 * under {@code CI=true}, like every interop test. Each run leaves a screenshot in
 * {@code examples/target/explorer.png}; with {@code -Dexplorer.screenshot=docs} it also replaces
 * {@code docs/explorer.png}.
 */
@Tag("interop")
class ExplorerBrowserInteropTest {

    private static final long SERVER_WAIT_SECONDS = HeadlessChromium.WAIT.toSeconds();
    /** 256-byte blocks: the 3000-byte resource comes in 12 blocks, the 2500-byte upload goes in 3 of 1024. */
    private static final int BLOCK_SIZE = 256;
    private static final String LARGE = largeText(3000);
    private static final String EVIL_TITLE = "<img src=x onerror=window.pwned=1>";
    private static final String EVIL_BODY = "<script>window.pwned=2</script><img src=x onerror=window.pwned=3>";

    private final AtomicReference<String> temperature = new AtomicReference<>("20");
    private final AtomicReference<String> trace = new AtomicReference<>(traceText(0));
    private final BlockingQueue<String> ledPuts = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> stored = new LinkedBlockingQueue<>();
    private CoapServer server;
    private CoapResource temp;
    private CoapResource log;
    private HeadlessChromium browser;

    @BeforeEach
    void start() {
        temp = CoapResource.named("temp").resourceType("temperature").interfaceDescription("sensor")
                .advertiseContentFormats(ContentFormat.TEXT_PLAIN).setObservable(true)
                .onGet(ex -> ex.respond(temperature.get()));
        CoapResource led = CoapResource.named("led").title("Status LED")
                .onPut(ex -> {
                    ledPuts.add(ex.payloadText());
                    ex.respond(Code.CHANGED, r -> r.payload("led is " + ex.payloadText()).maxAge(30));
                });
        log = CoapResource.named("log").title("600 bytes, observable").setObservable(true)
                .onGet(ex -> ex.respond(trace.get()));
        CoapResource sensors = CoapResource.named("sensors").title("Sensors");
        sensors.add(temp, log);
        CoapResource actuators = CoapResource.named("actuators");
        actuators.add(led);
        server = CoapServer.builder()
                .config(Plugtest.blockSize(CoapConfig.builder(), BLOCK_SIZE).build())
                .ws(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .configureEndpoints(b -> b.httpResponder(ExplorerPage.load()))
                .build();
        server.add(sensors, actuators,
                CoapResource.named("large").title("3000 bytes").maxSizeEstimate(LARGE.length())
                        .onGet(ex -> ex.respond(LARGE)),
                CoapResource.named("store").onPut(ex -> {
                    stored.add(ex.payloadText());
                    ex.respond(Code.CHANGED);
                }));
        server.start();
    }

    @AfterEach
    void stop() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            server.destroy();
        }
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void discoveryPutObserveAndBlockwiseInTheBrowser() throws Exception {
        InteropPeers peers = InteropPeers.fromEnvironment();
        Path chromedriver = peers.assumePeer(Peer.CHROMEDRIVER);
        Path chromium = peers.assumePeer(Peer.CHROMIUM);
        browser = HeadlessChromium.start(chromedriver, chromium, 1200, 900);
        int port = server.endpoints().get(0).address().getPort();
        browser.open("http://127.0.0.1:" + port + "/");
        browser.await("the CSM exchange", "document.getElementById('status').dataset.state === 'open'");

        discovery();
        put();
        blockwiseGet();
        observe();
        screenshot();
        cancelObservation();
        observeBlockwise();
        blockwiseUpload();
        ping();
        serverDataIsNeverRun();
        malformedMessagesAreRefused();
    }

    private void discovery() throws Exception {
        browser.click("#discover");
        // The page discovers once by itself when it connects, so the tree may be there already
        // when the click starts the second discovery: wait for that one's status too.
        browser.await("the resource tree", "[...document.querySelectorAll('#tree li')].some(li => li.dataset.path"
                + " === arguments[0] && li.querySelector(':scope > .attrs')?.textContent.includes(arguments[1]))"
                + " && !document.getElementById('discovery-status').textContent.startsWith('discovering')",
                "/sensors/temp", "if=\"sensor\"");
        assertEquals(List.of("rt=\"temperature\"", "if=\"sensor\"", "ct=0", "obs"), sorted(attrs("/sensors/temp"),
                List.of("rt", "if", "ct", "obs")));
        assertEquals(List.of("title=\"Status LED\""), attrs("/actuators/led"));
        assertTrue(attrs("/large").contains("sz=3000"), attrs("/large").toString());
        assertEquals(List.of("title=\"Sensors\""), attrs("/sensors"));
        String tree = textOf("#tree");
        assertTrue(tree.indexOf("sensors") < tree.indexOf("temp"), "temp is under sensors: " + tree);
        assertTrue(textOf("#discovery-status").matches("\\d+ links \\(\\d+ bytes, \\d+ messages?\\)"),
                textOf("#discovery-status"));
    }

    private void put() throws Exception {
        browser.click("#tree li[data-path=\"/actuators/led\"] > .node");
        assertEquals("/actuators/led", browser.script("return document.getElementById('path').value;"),
                "clicking a resource picks its path");
        browser.click("#method option[value=\"PUT\"]");
        browser.click("#content-format option[value=\"0\"]");
        browser.type("#payload", "on");
        browser.click("#send");
        assertEquals("on", ledPuts.poll(SERVER_WAIT_SECONDS, TimeUnit.SECONDS), "the server received the PUT");
        browser.await("the 2.04", "document.getElementById('response-code').dataset.code === '2.04'");
        assertEquals("2.04 Changed", textOf("#response-code"));
        assertEquals("led is on", textOf("#response-payload"));
        String options = textOf("#response-options");
        assertTrue(options.contains("Content-Format0 (text/plain;charset=utf-8)") && options.contains("Max-Age30"), options);
        String sent = logRow("out", "0.03");
        assertTrue(sent.contains("Uri-Path: actuators") && sent.contains("Uri-Path: led")
                && sent.contains("Content-Format: 0 (text/plain;charset=utf-8)") && sent.contains("on (2 bytes)"), sent);
        String answer = logRow("in", "2.04");
        assertTrue(answer.contains("2.04 Changed") && answer.contains("Content-Format: 0 (text/plain;charset=utf-8)")
                && answer.contains("Max-Age: 30") && answer.contains("led is on (9 bytes)"), answer);
    }

    private void blockwiseGet() throws Exception {
        browser.click("#method option[value=\"GET\"]");
        browser.type("#path", "/large");
        browser.click("#send");
        browser.await("the reassembled body", "document.getElementById('response-payload').textContent.length === "
                + LARGE.length());
        assertEquals(LARGE, textOf("#response-payload"));
        int blocks = (LARGE.length() + BLOCK_SIZE - 1) / BLOCK_SIZE;
        assertTrue(textOf("#response-meta").startsWith(LARGE.length() + " bytes in " + blocks + " messages"),
                textOf("#response-meta"));
        assertTrue(logRow("in", "2.05").contains("Block2: " + (blocks - 1) + "/0/" + BLOCK_SIZE), logRow("in", "2.05"));
    }

    private void observe() throws Exception {
        browser.type("#path", "/sensors/temp");
        browser.click("#observe");
        String card = ".observation[data-path=\"/sensors/temp\"]";
        browser.await("the registration", "document.querySelector(arguments[0]).dataset.state === 'active'", card);
        assertEquals("20", textOf(card + " .latest"));
        assertEquals(1, temp.observerCount(), "one relation on the server");
        List<String> values = List.of("21.5", "22", "23.25", "22.75", "24");
        for (String v : values) {
            temperature.set(v);
            temp.changed();
            browser.await("the notification " + v, "document.querySelector(arguments[0] + ' .latest').textContent"
                    + " === arguments[1]", card, v);
        }
        assertEquals("20 21.5 22 23.25 22.75 24",
                browser.script("return document.querySelector(arguments[0] + ' svg.chart').dataset.values;", card));
        assertEquals(Boolean.FALSE, browser.script("return document.querySelector(arguments[0] + ' svg.chart').hidden;", card));
        assertEquals(6L, browser.script("return document.querySelector(arguments[0] + ' polyline')"
                + ".getAttribute('points').trim().split(' ').length;", card), "one point per value");
        assertEquals("6 notifications", textOf(card + " .obs-count"));
    }

    private void cancelObservation() throws Exception {
        String card = ".observation[data-path=\"/sensors/temp\"]";
        browser.click(card + " button");
        browser.await("the deregistration", "document.querySelector(arguments[0]).dataset.state === 'ended'", card);
        assertEquals("ended: cancelled", textOf(card + " .obs-state"));
        assertEquals(0, temp.observerCount(), "GET with Observe 1 removed the relation (RFC 7641 3.6)");
    }

    /** Notifications larger than a block: their rest comes by GETs without Observe (RFC 7959 §3.4). */
    private void observeBlockwise() throws Exception {
        String card = ".observation[data-path=\"/sensors/log\"]";
        browser.type("#path", "/sensors/log");
        browser.click("#observe");
        browser.await("the first block-wise notification", "document.querySelector(arguments[0] + ' .latest')"
                + "?.textContent === arguments[1]", card, traceText(0));
        for (int i = 1; i <= 2; i++) {
            trace.set(traceText(i));
            log.changed();
            browser.await("block-wise notification " + i, "document.querySelector(arguments[0] + ' .latest')"
                    + ".textContent === arguments[1]", card, traceText(i));
        }
        assertEquals(Boolean.TRUE, browser.script("return document.querySelector(arguments[0] + ' svg.chart').hidden;", card),
                "text is not charted");
        assertTrue(logRows("in", "2.05").stream().anyMatch(r -> r.contains("Observe: ") && r.contains("Block2: 0/1/256")),
                "a notification came as its first block");
        assertTrue(logRows("out", "0.01").stream().anyMatch(r -> r.contains("Uri-Path: log") && r.contains("Block2: 2/0/256")
                && !r.contains("Observe")), "its last block was fetched without Observe");
        browser.click(card + " button");
        browser.await("the deregistration", "document.querySelector(arguments[0]).dataset.state === 'ended'", card);
        assertEquals(0, log.observerCount());
    }

    private void blockwiseUpload() throws Exception {
        String body = largeText(2500);
        browser.click("#method option[value=\"PUT\"]");
        browser.type("#path", "/store");
        browser.script("document.getElementById('payload').value = arguments[0];", body); // typing 2500 keys is slow
        browser.click("#send");
        assertEquals(body, stored.poll(SERVER_WAIT_SECONDS, TimeUnit.SECONDS), "the server reassembled the Block1 upload");
        browser.await("the upload's 2.04", "document.getElementById('response-code').dataset.code === '2.04'");
        assertTrue(textOf("#response-meta").contains("in 3 messages"), textOf("#response-meta"));
        assertTrue(logRow("in", "2.31").contains("Block1: 1/1/1024"), logRow("in", "2.31"));
    }

    private void ping() throws Exception {
        browser.click("#ping");
        browser.await("the Pong", "document.getElementById('ping-result').textContent.startsWith('pong in')");
        assertTrue(logRow("in", "7.03").contains("7.03 Pong"), logRow("in", "7.03"));
    }

    /** A hostile device's link attributes and payloads are shown as text; nothing of them runs. */
    private void serverDataIsNeverRun() throws Exception {
        server.add(CoapResource.named("evil").title(EVIL_TITLE).onGet(ex -> ex.respond(EVIL_BODY)));
        browser.click("#discover");
        browser.await("the hostile resource", "[...document.querySelectorAll('#tree li')]"
                + ".some(li => li.dataset.path === arguments[0])", "/evil");
        assertTrue(attrs("/evil").contains("title=\"" + EVIL_TITLE + "\""), attrs("/evil").toString());
        browser.click("#method option[value=\"GET\"]");
        browser.type("#path", "/evil");
        browser.click("#send");
        browser.await("the hostile payload", "document.getElementById('response-payload').textContent === arguments[0]",
                EVIL_BODY);
        assertEquals(Boolean.TRUE, browser.script("return window.pwned === undefined"
                + " && document.querySelectorAll('img, script:not([src])').length === 0"
                + " && document.querySelectorAll('script').length === 1;"), "markup from the server was parsed");
    }

    /**
     * The page's decoder, run in the browser, refuses what RFC 8323 §4.2 and RFC 7252 §3 do not
     * allow (the session answers such a message with Abort and closes).
     */
    private void malformedMessagesAreRefused() throws Exception {
        List<List<Integer>> bad = List.of(
                List.of(0x10, 0x45),             // Len not 0
                List.of(0x09, 0x45),             // TKL 9
                List.of(0x04, 0x45, 1, 2),       // token cut short
                List.of(0x00, 0x45, 0xff),       // payload marker, no payload
                List.of(0x00, 0x45, 0xf1, 0),    // option delta nibble 15
                List.of(0x00, 0x45, 0xd1),       // extended delta missing
                List.of(0x00, 0x45, 0x13, 1),    // value past the end
                List.of(0x45));                  // one byte
        Object verdicts = browser.asyncScript("const done = arguments[arguments.length - 1];"
                + "import('/coap.js').then(c => done(arguments[0].map(b => {"
                + "  try { c.decode(Uint8Array.from(b)); return 'accepted'; }"
                + "  catch (e) { return e instanceof c.FormatError ? 'refused' : String(e); } })),"
                + " e => done(String(e)));", bad);
        assertEquals(Collections.nCopies(bad.size(), "refused"), verdicts);
        Object good = browser.asyncScript("const done = arguments[arguments.length - 1];"
                + "import('/coap.js').then(c => { const m = c.decode(Uint8Array.from(arguments[0]));"
                + " done([c.codeText(m.code), c.hex(m.token), m.options.length, c.decodeText(m.payload)]); },"
                + " e => done(String(e)));", List.of(0x02, 0x45, 0xab, 0xcd, 0xc1, 0x00, 0xff, 0x68, 0x69));
        assertEquals(List.of("2.05 Content", "abcd", 1L, "hi"), good);
    }

    private void screenshot() throws Exception {
        byte[] png = browser.screenshot();
        assertTrue(png.length > 8 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', "a PNG");
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", "explorer.png"), png);
        if ("docs".equals(System.getProperty("explorer.screenshot"))) {
            Path root = InteropPeers.fromEnvironment().repositoryRoot().orElseThrow();
            Files.write(root.resolve("docs").resolve("explorer.png"), png);
        }
    }

    /** The link attributes the tree shows for {@code path}. */
    @SuppressWarnings("unchecked")
    private List<String> attrs(String path) throws Exception {
        Object list = browser.script("const li = [...document.querySelectorAll('#tree li')]"
                + ".find(x => x.dataset.path === arguments[0]);"
                + "return li ? [...li.querySelectorAll(':scope > .attrs > .attr')].map(a => a.textContent) : null;", path);
        assertNotNull(list, "no tree node for " + path + " in: " + textOf("#tree"));
        return (List<String>) list;
    }

    /** {@code attrs} ordered by {@code names}, each name's value where it is. */
    private static List<String> sorted(List<String> attrs, List<String> names) {
        return names.stream().flatMap(n -> attrs.stream().filter(a -> a.equals(n) || a.startsWith(n + "="))).toList();
    }

    /** The newest log row of {@code direction} whose code is {@code digits}, as text (cells joined by |). */
    private String logRow(String direction, String digits) throws Exception {
        Object row = browser.script("const r = [...document.querySelectorAll('#log-body tr')]"
                + ".find(x => x.dataset.dir === arguments[0] && x.dataset.code === arguments[1]);"
                + "return r ? [...r.cells].map(c => [...c.childNodes].map(n => n.textContent).join('\\n')).join(' | ')"
                + " : null;", direction, digits);
        assertNotNull(row, "no " + direction + " " + digits + " row in the message log");
        return (String) row;
    }

    /** Every log row of {@code direction} whose code is {@code digits}, newest first. */
    @SuppressWarnings("unchecked")
    private List<String> logRows(String direction, String digits) throws Exception {
        return (List<String>) browser.script("return [...document.querySelectorAll('#log-body tr')]"
                + ".filter(x => x.dataset.dir === arguments[0] && x.dataset.code === arguments[1])"
                + ".map(r => [...r.cells].map(c => [...c.childNodes].map(n => n.textContent).join('\\n')).join(' | '));",
                direction, digits);
    }

    private String textOf(String css) throws Exception {
        return (String) browser.script("return document.querySelector(arguments[0]).textContent;", css);
    }

    private static String traceText(int version) {
        return "v" + version + " " + largeText(600);
    }

    private static String largeText(int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; sb.length() < length; i++) {
            sb.append("line ").append(i).append(" of a block-wise body\n");
        }
        sb.setLength(length);
        return sb.toString();
    }
}
