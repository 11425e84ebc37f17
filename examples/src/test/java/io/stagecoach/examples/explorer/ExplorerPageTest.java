package io.stagecoach.examples.explorer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.server.CoapServer;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The explorer's files as HTTP serves them on a real coap+ws port: types, security and caching
 * headers, HEAD, 405, 404 for everything else (traversal attempts included); and the rules the
 * files themselves keep (no inline script or style, no markup built from strings).
 */
class ExplorerPageTest {

    private static final ExplorerPage PAGE = ExplorerPage.load();
    private static CoapServer server;
    private static int port;

    @BeforeAll
    static void start() {
        server = CoapServer.builder().ws(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .configureEndpoints(b -> b.httpResponder(PAGE)).build();
        server.start();
        port = server.endpoints().get(0).address().getPort();
    }

    @AfterAll
    static void stop() {
        server.destroy();
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void theRootIsThePageWithStrictHeaders() throws IOException {
        Http r = http("GET / HTTP/1.1");
        assertEquals(200, r.status, r.head);
        assertEquals("text/html; charset=utf-8", r.header("content-type"));
        assertEquals(ExplorerPage.CONTENT_SECURITY_POLICY, r.header("content-security-policy"));
        assertTrue(r.header("content-security-policy").startsWith("default-src 'none'; script-src 'self';"));
        assertEquals("nosniff", r.header("x-content-type-options"));
        assertEquals("no-referrer", r.header("referrer-policy"));
        assertEquals("DENY", r.header("x-frame-options"));
        assertEquals("no-cache", r.header("cache-control"));
        assertArrayEquals(resource("index.html"), r.body);
        assertEquals(200, http("GET /?from=bookmark HTTP/1.1").status, "a query does not change the file");
        assertArrayEquals(resource("index.html"), http("GET /index.html HTTP/1.1").body);
    }

    @Test
    void everyFileIsServedWithItsType() throws IOException {
        for (String name : ExplorerPage.FILES) {
            Http r = http("GET /" + name + " HTTP/1.1");
            assertEquals(200, r.status, name);
            assertEquals(ExplorerPage.contentType(name), r.header("content-type"), name);
            assertArrayEquals(resource(name), r.body, name);
        }
        assertEquals("text/javascript; charset=utf-8", http("GET /app.js HTTP/1.1").header("content-type"));
        assertEquals("text/css; charset=utf-8", http("GET /explorer.css HTTP/1.1").header("content-type"));
    }

    @Test
    void headSendsTheHeadersWithoutTheBody() throws IOException {
        Http r = http("HEAD /app.js HTTP/1.1");
        assertEquals(200, r.status, r.head);
        assertEquals(String.valueOf(resource("app.js").length), r.header("content-length"));
        assertEquals(0, r.body.length, "no body after HEAD");
    }

    @Test
    void otherMethodsGet405WithAllow() throws IOException {
        for (String method : new String[] {"POST", "PUT", "DELETE", "OPTIONS"}) {
            Http r = http(method + " / HTTP/1.1");
            assertEquals(405, r.status, method);
            assertEquals("GET, HEAD", r.header("allow"), method);
        }
    }

    /** The target is a key in a fixed map: nothing else on the class path or disk is reachable. */
    @Test
    void everyOtherPathIs404AndNoTraversalReachesAFile() throws IOException {
        String[] targets = {"/missing", "/../pom.xml", "/../../logback.xml", "/..%2f..%2fpom.xml", "/%2e%2e/logback.xml",
            "/logback.xml", "/ExplorerPage.class", "/io/stagecoach/examples/explorer/app.js", "/explorer/../app.js",
            "/./app.js", "//app.js", "/app.js/", "/APP.JS", "/app.js%00", "/%61pp.js", "/app.js;x", "/..\\app.js",
            "/.well-known/core", "http://evil.example/app.js", "*"};
        for (String target : targets) {
            Http r = http("GET " + target + " HTTP/1.1");
            assertEquals(404, r.status, target + " -> " + r.head);
            assertEquals("Not Found\n", new String(r.body, StandardCharsets.UTF_8), target);
            assertEquals("nosniff", r.header("x-content-type-options"), target);
        }
        assertEquals(404, PAGE.respond("GET", "/../pom.xml").status());
        assertEquals(404, PAGE.respond("POST", "/nothing").status(), "unknown paths are 404 whatever the method");
    }

    /** The files keep the Content-Security-Policy possible: no inline script, handler or style. */
    @Test
    void thePageHasNoInlineScriptOrStyle() {
        String html = new String(resource("index.html"), StandardCharsets.UTF_8);
        Matcher scripts = Pattern.compile("<script([^>]*)>(.*?)</script>", Pattern.DOTALL).matcher(html);
        int count = 0;
        while (scripts.find()) {
            count++;
            assertTrue(scripts.group(1).contains("src="), "a script without src: " + scripts.group());
            assertEquals("", scripts.group(2).trim(), "inline script: " + scripts.group());
        }
        assertEquals(1, count, "one module script");
        assertFalse(Pattern.compile("\\son[a-z]+\\s*=", Pattern.CASE_INSENSITIVE).matcher(html).find(), "event handler attribute");
        assertFalse(html.contains("style="), "style attribute");
        assertFalse(html.contains("<style"), "style element");
        assertFalse(html.contains("http://") || html.contains("https://"), "nothing is loaded from the network");
    }

    /** Server data reaches the page through textContent and attributes only (docs/explorer.md, Security). */
    @Test
    void theScriptsNeverParseMarkupOrCode() {
        Pattern forbidden = Pattern.compile(
                "innerHTML|outerHTML|insertAdjacentHTML|document\\.write|\\beval\\(|new Function|setAttribute\\('on"
                        + "|createContextualFragment|DOMParser|srcdoc|javascript:");
        for (String name : ExplorerPage.FILES) {
            if (!name.endsWith(".js")) {
                continue;
            }
            String js = new String(resource(name), StandardCharsets.UTF_8);
            Matcher m = forbidden.matcher(js);
            assertFalse(m.find(), () -> name + " uses " + m.group());
            assertFalse(js.contains("import(") || js.matches("(?s).*from '(https?:)?//.*"), name + " loads code from elsewhere");
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = ExplorerPage.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new AssertionError(name, e);
        }
    }

    /** One HTTP/1.1 exchange on a new connection: {@code requestLine}, then Host and Connection: close. */
    private static Http http(String requestLine) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write((requestLine + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            byte[] all = s.getInputStream().readAllBytes();
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            assertTrue(end > 0, "no HTTP head in: " + text);
            String head = text.substring(0, end);
            byte[] body = Arrays.copyOfRange(all, end + 4, all.length);
            return new Http(Integer.parseInt(head.substring(9, 12)), head, body);
        }
    }

    private record Http(int status, String head, byte[] body) {
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }
}
