package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.Request;
import java.nio.charset.StandardCharsets;

/**
 * The fixed texts of the plugtest conformance document (shared/conformance/plugtest-resources.md,
 * section 3 "Common text"): {@code REQINFO}, {@code LARGE} and {@code LARGEREQ}.
 */
public final class PlugtestText {

    /** Length of {@link #LARGE} and {@link #LARGEREQ}: 5 groups of 4 lines of 64 bytes. */
    public static final int LARGE_SIZE = 1280;

    /** The 1280-byte body of {@code /large}. */
    public static final String LARGE = blocks("|" + " ".repeat(17) + "RESOURCE BLOCK NO. %d OF 5" + " ".repeat(19) + "|");

    /** The 1280-byte request body the block tests upload. */
    public static final String LARGEREQ = blocks("|" + " ".repeat(18) + "Request BLOCK NO. %d OF 5" + " ".repeat(19) + "|");

    private PlugtestText() {
    }

    /**
     * {@code "Type: <t> (<TYPE>)\nCode: <c> (<CODE>)\nMID: <mid>"}: the numeric message type and
     * its name, the numeric method code and its name, and the Message ID of {@code request}. Over
     * TCP, TLS and WebSockets a message has neither type nor MID (RFC 8323 §3.2): "Type: none",
     * "MID: -1".
     */
    public static String reqInfo(Request request) {
        String type = request.type() == null ? "none" : request.type().wire() + " (" + request.type() + ")";
        return "Type: " + type + "\n"
                + "Code: " + request.code().value() + " (" + request.code().name() + ")\n"
                + "MID: " + request.mid();
    }

    /** {@code text} cut to at most {@code max} UTF-8 bytes (ASCII in practice: the plugtest texts). */
    static byte[] truncate(String text, int max) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= max) {
            return bytes;
        }
        byte[] cut = new byte[max];
        System.arraycopy(bytes, 0, cut, 0, max);
        return cut;
    }

    private static String blocks(String secondLine) {
        String edgeTop = "/" + "-".repeat(61) + "\\\n";
        String third = "|" + " ".repeat(15) + "[each line contains 64 bytes]" + " ".repeat(17) + "|\n";
        String edgeBottom = "\\" + "-".repeat(61) + "/\n";
        StringBuilder sb = new StringBuilder(LARGE_SIZE);
        for (int i = 1; i <= 5; i++) {
            sb.append(edgeTop).append(String.format(secondLine, i)).append('\n').append(third).append(edgeBottom);
        }
        return sb.toString();
    }
}
