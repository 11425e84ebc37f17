package io.stagecoach.examples.cli;

import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.link.LinkFormat;
import io.stagecoach.core.link.WebLink;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Prints a response as {@code ./stagecoach client} does: the payload (text formats get a final
 * newline, others are written as raw bytes); link-format one link per line; with {@code -v} the code
 * and each option first; with {@code -o FILE} the payload goes to the file unchanged.
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
                out.println("  " + o);
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
        int cf = r.options().contentFormat();
        if (cf == 40) {
            out.print(prettyLinks(new String(payload, StandardCharsets.UTF_8)));
        } else if (isText(cf)) {
            String text = new String(payload, StandardCharsets.UTF_8);
            out.print(text.endsWith("\n") ? text : text + "\n");
        } else {
            out.write(payload, 0, payload.length);
        }
        out.flush();
    }

    /** One link per line: {@code </obs>  ct=0  obs  rt="observe"}; unparsable text is printed as it is. */
    static String prettyLinks(String linkFormat) {
        List<WebLink> links;
        try {
            links = LinkFormat.parse(linkFormat);
        } catch (IllegalArgumentException e) {
            return linkFormat.endsWith("\n") ? linkFormat : linkFormat + "\n";
        }
        StringBuilder sb = new StringBuilder();
        for (WebLink link : links) {
            sb.append('<').append(link.target()).append('>');
            for (Map.Entry<String, List<String>> a : link.attributes().entrySet()) {
                sb.append("  ").append(a.getKey());
                if (!a.getValue().isEmpty()) {
                    String v = String.join(" ", a.getValue());
                    sb.append('=').append(v.matches("[0-9]+") ? v : "\"" + v + "\"");
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static boolean isText(int cf) {
        return cf < 0 || cf == 0 || cf == 41 || cf == 50 || cf == 51 || cf == 52 || cf == 110 || cf == 111;
    }
}
