package io.stagecoach.examples.explorer;

import static org.junit.jupiter.api.Assertions.fail;

import io.stagecoach.core.interop.PeerProcess;
import io.stagecoach.core.testutil.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Headless Chromium driven through chromedriver's W3C WebDriver HTTP API (no Selenium): a
 * session in a fresh profile directory, pages, elements by CSS selector, scripts, screenshots.
 *
 * <p>Waits run in the page: {@link #await} installs a {@code MutationObserver} that finishes an
 * asynchronous script as soon as the condition holds, bounded by the session's script timeout;
 * nothing polls on a timer. HTTP goes through {@link HttpURLConnection} with
 * {@code Connection: close}: it starts no thread, so nothing outlives {@link #close()}.
 *
 * <p>{@link #close()} ends the session, then chromedriver and every process under it (Chromium's
 * browser, renderer and helper processes), then any process still naming the profile directory
 * (a helper that Chromium detached), and deletes the directory.
 */
final class HeadlessChromium implements AutoCloseable {

    /** W3C WebDriver's key of an element reference (WebDriver §12.1). */
    private static final String ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
    private static final Pattern PORT = Pattern.compile("was started successfully on port (\\d+)");
    private static final Duration DRIVER_START = Duration.ofSeconds(30);
    /** Bound of every {@link #await}: page loads, CoAP round trips and renders on a shared 2-core machine. */
    static final Duration WAIT = Duration.ofSeconds(20);

    private final PeerProcess driver;
    private final Path profile;
    private final String base;
    private String session;

    private HeadlessChromium(PeerProcess driver, Path profile, String base) {
        this.driver = driver;
        this.profile = profile;
        this.base = base;
    }

    /** Starts chromedriver on a free loopback port and a headless Chromium session of {@code width} x {@code height}. */
    static HeadlessChromium start(Path chromedriver, Path chromium, int width, int height) throws Exception {
        Path profile = Files.createTempDirectory("stagecoach-chromium-");
        PeerProcess driver;
        try {
            driver = PeerProcess.start(List.of(chromedriver.toString(), "--port=0"));
        } catch (IOException | RuntimeException e) {
            deleteTree(profile);
            throw e;
        }
        HeadlessChromium browser = null;
        try {
            if (!driver.awaitOutput(p -> PORT.matcher(p.stdout()).find(), DRIVER_START)) {
                fail("chromedriver did not say its port: " + driver.describe());
            }
            Matcher m = PORT.matcher(driver.stdout());
            m.find();
            browser = new HeadlessChromium(driver, profile, "http://127.0.0.1:" + m.group(1));
            browser.newSession(chromium, width, height);
            return browser;
        } catch (Exception | Error e) {
            if (browser != null) {
                browser.close();
            } else {
                driver.close();
                deleteTree(profile);
            }
            throw e;
        }
    }

    private void newSession(Path chromium, int width, int height) throws IOException {
        List<String> args = List.of(
                "--headless=new",
                // Root in CI containers: Chromium's sandbox needs user namespaces it may not get.
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-crash-reporter",
                "--hide-scrollbars",
                "--force-device-scale-factor=1",
                "--window-size=" + width + "," + height,
                "--user-data-dir=" + profile);
        Map<String, Object> chrome = new LinkedHashMap<>();
        chrome.put("binary", chromium.toString());
        chrome.put("args", args);
        Map<String, Object> always = new LinkedHashMap<>();
        always.put("browserName", "chrome");
        always.put("goog:chromeOptions", chrome);
        Map<String, Object> answer = map(call("POST", "/session", Map.of("capabilities", Map.of("alwaysMatch", always))));
        session = (String) answer.get("sessionId");
        call("POST", path("/timeouts"), Map.of("script", WAIT.toMillis(), "pageLoad", WAIT.toMillis(),
                "implicit", 0));
    }

    /** Loads {@code url} and returns when its load event has fired. */
    void open(String url) throws IOException {
        call("POST", path("/url"), Map.of("url", url));
    }

    void click(String css) throws IOException {
        call("POST", path("/element/" + element(css) + "/click"), Map.of());
    }

    /** Clears the input or text area {@code css} and types {@code text} into it. */
    void type(String css, String text) throws IOException {
        String id = element(css);
        call("POST", path("/element/" + id + "/clear"), Map.of());
        call("POST", path("/element/" + id + "/value"), Map.of("text", text));
    }

    /** The rendered text of the first element matching {@code css}. */
    String text(String css) throws IOException {
        return (String) call("GET", path("/element/" + element(css) + "/text"), null);
    }

    /** Runs {@code script} (a function body; {@code arguments} holds {@code args}) and returns its value. */
    Object script(String script, Object... args) throws IOException {
        return call("POST", path("/execute/sync"), Map.of("script", script, "args", List.of(args)));
    }

    /** Runs {@code script}, which ends by calling its last argument with the result, and returns that result. */
    Object asyncScript(String script, Object... args) throws IOException {
        return call("POST", path("/execute/async"), Map.of("script", script, "args", List.of(args)));
    }

    /**
     * Waits until the JavaScript expression {@code condition} (over {@code arguments}) is true in
     * the page, at most {@link #WAIT}; fails with {@code what} and the page's text otherwise.
     */
    void await(String what, String condition, Object... args) throws IOException {
        String script = "const done = arguments[arguments.length - 1];\n"
                + "const check = () => { try { return !!(" + condition + "); } catch (e) { return false; } };\n"
                + "if (check()) { done(true); return; }\n"
                + "const watch = new MutationObserver(() => { if (check()) { watch.disconnect(); done(true); } });\n"
                + "watch.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});";
        try {
            call("POST", path("/execute/async"), Map.of("script", script, "args", List.of(args)));
        } catch (WebDriverException e) {
            String page;
            try {
                page = (String) script("return document.body.innerText;");
            } catch (IOException | RuntimeException again) {
                page = "(page text unavailable: " + again + ")";
            }
            fail("waited " + WAIT.toSeconds() + " s for " + what + " (" + condition + "): " + e.getMessage()
                    + "\n--- page text ---\n" + page);
        }
    }

    /** A PNG of the viewport. */
    byte[] screenshot() throws IOException {
        return Base64.getDecoder().decode((String) call("GET", path("/screenshot"), null));
    }

    private String element(String css) throws IOException {
        Map<String, Object> ref = map(call("POST", path("/element"), Map.of("using", "css selector", "value", css)));
        return (String) ref.get(ELEMENT);
    }

    private String path(String rest) {
        return "/session/" + session + rest;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    /** One WebDriver command; returns the answer's {@code value}, throws {@link WebDriverException} for an error. */
    private Object call(String method, String path, Object body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(base + path).openConnection();
        try {
            c.setRequestMethod(method);
            c.setRequestProperty("Connection", "close");
            c.setConnectTimeout(10_000);
            c.setReadTimeout((int) WAIT.plusSeconds(30).toMillis());
            if (body != null) {
                byte[] json = Json.write(body).getBytes(StandardCharsets.UTF_8);
                c.setDoOutput(true);
                c.setRequestProperty("Content-Type", "application/json; charset=utf-8");
                try (OutputStream out = c.getOutputStream()) {
                    out.write(json);
                }
            }
            int status = c.getResponseCode();
            String text;
            try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
                text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Object value = text.isEmpty() ? null : map(Json.parse(text)).get("value");
            if (status >= 400) {
                Map<String, Object> error = value instanceof Map ? map(value) : Map.of();
                throw new WebDriverException(method + " " + path + ": HTTP " + status + " "
                        + error.getOrDefault("error", "") + ": " + error.getOrDefault("message", text));
            }
            return value;
        } finally {
            c.disconnect();
        }
    }

    @Override
    public void close() {
        List<Throwable> problems = new ArrayList<>();
        if (session != null) {
            try {
                call("DELETE", "/session/" + session, null); // Chromium quits
            } catch (IOException | RuntimeException e) {
                problems.add(e);
            }
            session = null;
        }
        driver.close(); // chromedriver and its descendants: SIGTERM, SIGKILL after 2 s
        // A process Chromium detached from its tree still names the profile on its command line.
        String mark = profile.toString();
        List<ProcessHandle> strays = ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(cmd -> cmd.contains(mark)).orElse(false))
                .toList();
        strays.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : strays) {
            try {
                p.onExit().get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problems.add(e);
            } catch (ExecutionException | TimeoutException e) {
                problems.add(new IOException("process " + p.pid() + " outlived SIGKILL", e));
            }
        }
        try {
            deleteTree(profile);
        } catch (UncheckedIOException e) {
            problems.add(e);
        }
        if (!problems.isEmpty()) {
            UncheckedIOException e = new UncheckedIOException(new IOException("closing headless Chromium failed"));
            problems.forEach(e::addSuppressed);
            throw e;
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An error answer of the WebDriver protocol (WebDriver §6.6). */
    static final class WebDriverException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WebDriverException(String message) {
            super(message);
        }
    }
}
