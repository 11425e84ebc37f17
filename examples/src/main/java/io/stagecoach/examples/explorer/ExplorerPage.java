package io.stagecoach.examples.explorer;

import io.stagecoach.elements.tcp.HttpResponder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The CoAP explorer (docs/explorer.md): a single page that speaks CoAP over WebSockets
 * (RFC 8323 §4) from the browser, served on the {@code coap+ws} port of a server as its
 * {@link HttpResponder}:
 *
 * <pre>{@code
 * CoapServer.builder().ws(bind).configureEndpoints(b -> b.httpResponder(ExplorerPage.load()))
 * }</pre>
 *
 * <p>{@code GET /} is the page; its scripts and style sheet are the files of this package's
 * resource folder, read once by {@link #load()} and answered from memory. Only the fixed set
 * of {@link #FILES} is served, each at {@code /NAME}: the request target is looked up in a map,
 * never turned into a resource or file name, so no target (dot segments, encoded slashes,
 * backslashes) reaches anything else. Other paths get 404, other methods than GET and HEAD 405.
 *
 * <p>Every answer carries a Content-Security-Policy that allows scripts, styles and connections
 * from the page's own origin only (CSP Level 3 §6.7.2.8: {@code 'self'} also matches
 * {@code ws:}/{@code wss:} on the same host and port), no inline script, no framing, no forms,
 * plus {@code X-Content-Type-Options: nosniff} and {@code Referrer-Policy: no-referrer}.
 * {@code Cache-Control: no-cache} makes the browser fetch the files again on every load: they
 * are a few kilobytes from the device itself, and a page cached across a server upgrade could
 * otherwise mix old and new scripts.
 */
public final class ExplorerPage implements HttpResponder {

    /** The files served, each at {@code /NAME}; {@code index.html} also at {@code /}. */
    public static final List<String> FILES = List.of("index.html", "explorer.css", "app.js", "coap.js",
            "session.js", "linkformat.js", "chart.js");

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final Map<String, String> SECURITY_HEADERS = Map.of(
            "Content-Security-Policy", CONTENT_SECURITY_POLICY,
            "X-Content-Type-Options", "nosniff",
            "Referrer-Policy", "no-referrer",
            "X-Frame-Options", "DENY",
            "Cross-Origin-Resource-Policy", "same-origin",
            "Cache-Control", "no-cache");

    private static final String TEXT = "text/plain; charset=utf-8";
    private static final Reply NOT_FOUND = new Reply(404, TEXT, bytes("Not Found\n"), SECURITY_HEADERS);
    private static final Reply NOT_ALLOWED = new Reply(405, TEXT, bytes("Method Not Allowed\n"),
            with(SECURITY_HEADERS, "Allow", "GET, HEAD"));

    private final Map<String, Reply> byPath;

    private ExplorerPage(Map<String, Reply> byPath) {
        this.byPath = Map.copyOf(byPath);
    }

    /**
     * Reads the page's files from the class path.
     *
     * @throws IllegalStateException when a file is missing (a broken build)
     */
    public static ExplorerPage load() {
        Map<String, Reply> byPath = new HashMap<>();
        for (String name : FILES) {
            byPath.put("/" + name, new Reply(200, contentType(name), read(name), SECURITY_HEADERS));
        }
        byPath.put("/", byPath.get("/index.html"));
        return new ExplorerPage(byPath);
    }

    /**
     * The file for {@code target}'s path (a query is ignored), 404 for any other path, 405 for a
     * method other than GET or HEAD (HEAD: the connector sends the headers only).
     */
    @Override
    public Reply respond(String method, String target) {
        int query = target.indexOf('?');
        Reply reply = byPath.get(query < 0 ? target : target.substring(0, query));
        if (reply == null) {
            return NOT_FOUND;
        }
        return method.equals("GET") || method.equals("HEAD") ? reply : NOT_ALLOWED;
    }

    static String contentType(String name) {
        if (name.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        if (name.endsWith(".js")) {
            // RFC 9239 §6: text/javascript; module scripts are refused under any non-JavaScript type.
            return "text/javascript; charset=utf-8";
        }
        if (name.endsWith(".css")) {
            return "text/css; charset=utf-8";
        }
        throw new IllegalArgumentException("no content type for " + name);
    }

    private static byte[] read(String name) {
        try (InputStream in = ExplorerPage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("explorer file " + name + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        Map<String, String> out = new HashMap<>(headers);
        out.put(name, value);
        return out;
    }
}
