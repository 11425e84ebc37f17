package io.stagecoach.bench.dist;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.core.coap.CoapUri;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The master/slave control protocol: UTF-8 lines over TCP, each {@code VERB key=value ...}
 * with URL-encoded values. Master and slaves talk only before and after a step.
 *
 * <pre>
 * M: HELLO version=coapbench/1           S: HELLO version=coapbench/1 now=EPOCH_MS cores=N
 * M: TIME                                S: TIME now=EPOCH_MS              (clock offset probe)
 * M: RUN start=SLAVE_EPOCH_MS concurrency=N uri=.. method=.. payload=.. non=.. timeout_ms=..
 *        warmup_ms=.. duration_ms=.. cooldown_ms=.. loops=..
 *                                        S: RESULT late_ms=.. concurrency=.. duration_s=.. timeouts=..
 *                                              errors=.. throughput=.. completed=.. hist=BASE64
 * M: EXEC start=SLAVE_EPOCH_MS timeout_ms=.. cmd=..
 *                                        S: EXEC exit=CODE late_ms=.. output=BASE64
 * M: BYE                                 S: BYE
 * any failure:                           S: ERROR message=..
 * </pre>
 * {@code hist} is HdrHistogram's compressed encoding, base64; {@code start} is in the slave's
 * clock, converted by the master from the offset measured with TIME.
 */
public final class ControlProtocol {

    public static final String VERSION = "coapbench/1";

    private ControlProtocol() {
    }

    /** One parsed line. */
    public record Line(String verb, Map<String, String> args) {

        public Line {
            args = Collections.unmodifiableMap(new LinkedHashMap<>(args));
        }

        public String get(String key) {
            String v = args.get(key);
            if (v == null) {
                throw new IllegalArgumentException(verb + " line lacks '" + key + "'");
            }
            return v;
        }

        public long getLong(String key) {
            try {
                return Long.parseLong(get(key));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(verb + " line: '" + key + "' is not a number", e);
            }
        }

        public double getDouble(String key) {
            try {
                return Double.parseDouble(get(key));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(verb + " line: '" + key + "' is not a number", e);
            }
        }

        /** The line as sent on the wire (without the newline). */
        public String encode() {
            StringBuilder sb = new StringBuilder(verb);
            args.forEach((k, v) -> sb.append(' ').append(k).append('=')
                    .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
            return sb.toString();
        }
    }

    public static Line line(String verb, Object... keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            m.put(String.valueOf(keyValues[i]), String.valueOf(keyValues[i + 1]));
        }
        return new Line(verb, m);
    }

    /** Parses a line; IllegalArgumentException on a malformed one. */
    public static Line parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("connection closed");
        }
        String[] parts = text.trim().split(" ");
        if (parts[0].isEmpty()) {
            throw new IllegalArgumentException("empty line");
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("malformed argument '" + parts[i] + "' in " + parts[0]);
            }
            m.put(parts[i].substring(0, eq), URLDecoder.decode(parts[i].substring(eq + 1), StandardCharsets.UTF_8));
        }
        return new Line(parts[0], m);
    }

    public static Line run(long startSlaveMs, int concurrency, LoadSpec s) {
        return line("RUN", "start", startSlaveMs, "concurrency", concurrency, "uri", s.uri(), "method", s.method(),
                "payload", s.payloadSize(), "non", !s.confirmable(), "timeout_ms", s.timeout().toMillis(),
                "warmup_ms", s.warmup().toMillis(), "duration_ms", s.duration().toMillis(),
                "cooldown_ms", s.cooldown().toMillis(), "loops", s.loops(), "retransmit_ms", s.retransmit().toMillis());
    }

    public static LoadSpec loadSpec(Line run) {
        return new LoadSpec(CoapUri.parse(run.get("uri")), run.get("method"), (int) run.getLong("payload"),
                !Boolean.parseBoolean(run.get("non")), Duration.ofMillis(run.getLong("timeout_ms")),
                Duration.ofMillis(run.getLong("warmup_ms")), Duration.ofMillis(run.getLong("duration_ms")),
                Duration.ofMillis(run.getLong("cooldown_ms")), (int) run.getLong("loops"),
                // optional: a master from before --retransmit does not send it
                Duration.ofMillis(run.args().containsKey("retransmit_ms") ? run.getLong("retransmit_ms") : 0));
    }

    public static Line result(StepResult r, long lateMs) {
        return line("RESULT", "late_ms", lateMs, "concurrency", r.concurrency(), "duration_s", r.durationS(),
                "timeouts", r.timeouts(), "errors", r.errors(), "throughput", r.throughputRps(),
                "completed", r.completed(), "retransmissions", r.retransmissions(), "hist", encode(r.latencyUs()));
    }

    public static StepResult stepResult(Line result) {
        Histogram h = decode(result.get("hist"));
        long completed = result.getLong("completed");
        if (completed != h.getTotalCount()) {
            throw new IllegalArgumentException("RESULT completed=" + completed + " but histogram holds "
                    + h.getTotalCount());
        }
        return new StepResult((int) result.getLong("concurrency"), result.getDouble("duration_s"), completed,
                result.getLong("timeouts"), result.getLong("errors"), result.getDouble("throughput"), h, 0,
                result.args().containsKey("retransmissions") ? result.getLong("retransmissions") : 0);
    }

    /** HdrHistogram's compressed encoding, base64. */
    public static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buf.array(), n));
    }

    public static Histogram decode(String base64) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
        } catch (DataFormatException | RuntimeException e) {
            throw new IllegalArgumentException("undecodable histogram: " + e.getMessage(), e);
        }
    }
}
