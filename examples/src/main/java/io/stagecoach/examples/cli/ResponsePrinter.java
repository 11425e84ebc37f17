package io.stagecoach.examples.cli;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.link.LinkFormat;
import io.stagecoach.core.link.WebLink;
import io.stagecoach.elements.SafeText;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Prints a response as {@code ./stagecoach client} does: the payload (text formats get a final
 * newline); link-format one link per line; with {@code -v} the code and each option first; with
 * {@code -o FILE} the payload goes to the file unchanged.
 *
 * <p>Everything the server chose is printed through {@link SafeText}, so a server cannot send
 * terminal escape sequences or rewrite what the user sees: text payloads keep printable characters
 * of any script, tabs and line feeds; a diagnostic payload (an error answer without
 * Content-Format, RFC 7252 §5.5.2), option values and link attributes stay on one line; a payload
 * of any other format is shown as printable ASCII with {@code \xNN} escapes (use {@code -o FILE}
 * for its bytes).
 */
final class ResponsePrinter {

    private final PrintStream out;
    private final boolean verbose;
    private final Path output;

    ResponsePrinter(PrintStream out, boolean verbose, Path output) {
        this.out = out;
        this.verbose = verbose;
        this.output = output;
    }

    void print(Response r) throws IOException {
        if (verbose) {
            out.println(r.code());
            for (Option o : r.options()) {
                out.println("  " + SafeText.forTerminal(o.toString(), false));
            }
        }
        byte[] payload = r.payload();
        if (output != null) {
            Files.write(output, payload);
            return;
        }
        if (payload.length == 0) {
            return;
        }
        out.print(show(r.code(), r.options().contentFormat(), payload));
        out.flush();
    }

    /** What the terminal shows of a payload (never empty: {@code payload} has at least one byte). */
    static String show(Code code, int cf, byte[] payload) {
        if (cf == 40) {
            return prettyLinks(new String(payload, StandardCharsets.UTF_8));
        }
        if (cf < 0 && code.codeClass() >= 4) {
            return SafeText.forTerminal(new String(payload, StandardCharsets.UTF_8), false) + "\n";
        }
        if (isText(cf)) {
            String text = SafeText.forTerminal(new String(payload, StandardCharsets.UTF_8), true);
            return text.endsWith("\n") ? text : text + "\n";
        }
        return SafeText.forTerminal(payload) + "\n";
    }

    /**
     * One link per line: {@code </obs>  ct=0  obs  rt="observe"}, each part escaped to one line;
     * unparsable text is printed as text.
     */
    static String prettyLinks(String linkFormat) {
        List<WebLink> links;
        try {
            links = LinkFormat.parse(linkFormat);
        } catch (IllegalArgumentException e) {
            String text = SafeText.forTerminal(linkFormat, true);
            return text.endsWith("\n") ? text : text + "\n";
        }
        StringBuilder sb = new StringBuilder();
        for (WebLink link : links) {
            sb.append('<').append(oneLine(link.target())).append('>');
            for (Map.Entry<String, List<String>> a : link.attributes().entrySet()) {
                sb.append("  ").append(oneLine(a.getKey()));
                if (!a.getValue().isEmpty()) {
                    String v = oneLine(String.join(" ", a.getValue()));
                    sb.append('=').append(v.matches("[0-9]+") ? v : "\"" + v + "\"");
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String oneLine(String serverText) {
        return SafeText.forTerminal(serverText, false);
    }

    private static boolean isText(int cf) {
        return cf < 0 || cf == 0 || cf == 41 || cf == 50 || cf == 51 || cf == 52 || cf == 110 || cf == 111;
    }
}
