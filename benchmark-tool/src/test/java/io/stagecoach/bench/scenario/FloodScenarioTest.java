package io.stagecoach.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.bench.load.EventPacedClock;
import io.stagecoach.bench.load.EventPacedClock.Window;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flood scenario end to end against the server in its own JVM, its phases on an
 * {@link EventPacedClock} (a phase ends once the innocents got answers in it and, in an attack
 * phase, the attacker sent its datagrams, however loaded the machine), and its verdict rules.
 * Nothing here depends on how fast the machine is: the success-rate verdicts, which do, are
 * checked for consistency with the exit code only.
 */
@Timeout(120)
class FloodScenarioTest {

    private static final long ANSWERS_PER_PHASE = 20;
    private static final long DATAGRAMS_PER_ATTACK = 2_000;

    @AfterEach
    void noThreadLeft() {
        ThreadLeakCheck.assertNoStagecoachThreads();
    }

    @Test
    void smallRunAttacksAndMeasuresEveryPhaseCountsTheSpoofedAnswersAndClosesEverything(@TempDir Path dir)
            throws Exception {
        Path json = dir.resolve("flood.json");
        FloodOptions o = FloodOptions.parse(new String[] {"--quiet", "1", "--attack", "5", "--innocents", "2",
            "--unsolicited-ports", "4", "--request-ports", "12", "--timeout", "5"});
        AtomicReference<FloodScenario> scenario = new AtomicReference<>();
        // Each phase waits for innocent answers; an attack phase also for the attacker's datagrams. The
        // attack stops by itself after 5 s of real time, far more than 2,000 datagrams take.
        EventPacedClock clock = EventPacedClock.on(progress -> {
            FloodScenario s = scenario.get();
            Window answers = Window.atLeast(ANSWERS_PER_PHASE, "innocent answers", () -> progress.get().answered());
            return s.attacking() ? Window.all(answers, Window.atLeast(DATAGRAMS_PER_ATTACK, "attack datagrams",
                    s::attackDatagrams)) : answers;
        });
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        scenario.set(new FloodScenario(o, new PrintStream(err, true, StandardCharsets.UTF_8), clock));

        FloodResult r = scenario.get().run();

        String text = r.toText();
        assertEquals(List.of("before", "unsolicited", "between", "requests", "after"),
                r.phases().stream().map(FloodPhase::name).toList(), text);
        for (FloodPhase p : r.phases()) {
            assertTrue(p.innocents().success() > 0, "innocents were served in phase " + p.name() + ":\n" + text);
            assertEquals(0, p.innocents().sent() - p.innocents().ended(), "every request settled: " + p.name());
            assertEquals(p.name().equals("unsolicited") || p.name().equals("requests"), p.attack() != null, p.name());
            if (p.attack() != null) {
                assertTrue(p.attack().datagrams() >= DATAGRAMS_PER_ATTACK, p.name() + ": " + p.attack());
            }
        }
        assertEquals(4, r.phases().get(1).attack().ports());
        assertEquals(12, r.phases().get(3).attack().ports());
        // The server saw the unsolicited responses and matched none of them (the socket buffer may drop some).
        assertTrue(r.end().get("unmatched") > 0 && r.end().get("sent_rst") > 0, r.end().toString());
        assertEquals(8, r.probes().size());
        for (SpoofedProbes.Result p : r.probes()) {
            assertTrue(p.datagrams() >= 1, "the server answered the spoofed " + p.name());
        }
        // Machine-independent verdicts: what the server refused, what it sent to the victim, what was left.
        for (String v : List.of("no innocent request refused", "spoofed CON GET /.well-known/core: <= 3 x",
                "spoofed CON GET /large: <= 3 x", "silent observe registrants: each got <= 3 x",
                "server alive and answering after the attacks", "no bench-flood thread after the run")) {
            assertTrue(text.contains("PASS  " + v), v + ":\n" + text);
        }
        assertEquals(r.passed(), text.contains("RESULT PASS"), text);
        assertTrue(r.threadsLeft().isEmpty(), r.threadsLeft().toString());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("flood: phase 'requests': "), "progress on stderr");

        Files.writeString(json, io.stagecoach.bench.report.JsonWriter.write(r.toJsonMap("test", Map.of())));
        String j = Files.readString(json);
        for (String key : List.of("\"phases\"", "\"innocents\"", "\"success_rate\"", "\"spoofed\"", "\"ratio\"",
                "\"heap_bytes\"", "\"rate_per_s\"", "\"unmatched\"", "\"verdicts\"")) {
            assertTrue(j.contains(key), key + " in " + j);
        }
    }

    @Test
    void cliPrintsTheTableAndExitsByTheVerdicts() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = ScenarioMain.run(new String[] {"flood", "help"}, "test",
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, code);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--unsolicited-ports"), out.toString());
        assertThrows(IllegalArgumentException.class, () -> ScenarioMain.run(new String[] {"flod"}, "test",
                System.out, System.err));
    }

    @Test
    void optionsKeepAttackerVictimAndInnocentsApartAndOnLoopback() {
        FloodOptions d = FloodOptions.defaults();
        assertEquals("127.0.0.66", d.attacker().getHostAddress());
        assertEquals("127.0.0.77", d.victim().getHostAddress());
        assertEquals(1024, d.blockSize());
        assertEquals("64m", d.heap());
        FloodOptions p = FloodOptions.parse(new String[] {"--attack", "2.5", "--request-ports", "2000", "--heap", "128m"});
        assertEquals(Duration.ofMillis(2500), p.attack());
        assertEquals(2000, p.requestPorts());
        assertEquals("128m", p.heap());
        for (String[] bad : List.of(new String[] {"--attacker", "127.0.0.1"}, new String[] {"--victim", "10.0.0.1"},
                new String[] {"--attacker", "127.0.0.77"}, new String[] {"--heap", "lots"},
                new String[] {"--block-size", "1000"}, new String[] {"--attack", "0"},
                new String[] {"--attacker", "localhost"}, new String[] {"--innocents", "0"},
                new String[] {"--nope"})) {
            assertThrows(IllegalArgumentException.class, () -> FloodOptions.parse(bad), String.join(" ", bad));
        }
    }

    @Test
    void attackDatagramsAreWhatTheIssueDescribes() throws Exception {
        ByteBuffer buf = ByteBuffer.allocate(64);
        FloodDatagrams.unsolicitedResponses().write(buf, 0, 258);
        assertEquals(4, buf.remaining(), "four bytes, no token");
        assertEquals(0x40, buf.get(0) & 0xFF, "version 1, CON, TKL 0");
        assertEquals(0x45, buf.get(1) & 0xFF, "2.05");
        assertEquals(258, buf.getShort(2) & 0xFFFF);

        UdpMessageParser parser = new UdpMessageParser();
        List<String> mix = new ArrayList<>();
        for (int seq = 0; seq < 3; seq++) {
            FloodDatagrams.requestMix().write(buf, 0, seq);
            byte[] d = new byte[buf.remaining()];
            buf.get(d);
            Message m = parser.parse(d);
            assertTrue(m instanceof Request, m.toString());
            assertEquals(seq, m.mid(), "a new MID per datagram");
            assertEquals("benchmark", m.options().get(OptionNumber.URI_PATH).get(0).asString());
            mix.add(m.type() + " " + ((Request) m).code());
        }
        assertEquals(3, mix.stream().distinct().count(), "CON GET, NON GET and CON POST in turn: " + mix);
        assertTrue(mix.contains("NON " + io.stagecoach.core.coap.Code.GET), mix.toString());

        byte[] wkc = SpoofedProbes.standard().get(0).request();
        assertEquals(23, wkc.length, "the issue's 23-byte GET /.well-known/core");
        assertEquals(Type.CON, parser.parse(wkc).type());
        for (SpoofedProbes.Probe p : SpoofedProbes.standard()) {
            assertEquals(p.observe(), parser.parse(p.request()).options().has(OptionNumber.OBSERVE), p.name());
        }
        assertEquals("ACK 2.05 53 B", SpoofedProbes.describe(new byte[] {0x62, 0x45, 0, 1}, 53));
        assertFalse(parser.parse(wkc) instanceof Response);
    }

    @Test
    void verdictsFailOnLowSuccessRefusalsAmplificationADeadServerAndThreads() {
        List<FloodPhase> fine = phases(tally(1000, 995, 0, 5));
        List<SpoofedProbes.Result> small = List.of(probe("CON GET /.well-known/core", 23, 53, false),
                probe("NON GET /obs-non Observe 0", 15, 40, true));
        Map<String, Long> idle = Map.of("heap.used", 4L << 20, "heap.max", 64L << 20);
        Map<String, Long> end = Map.of("heap.used", 8L << 20, "heap.max", 64L << 20);
        FloodResult ok = FloodResult.judge("t", fine, small, idle, end, true, 0, List.of());
        assertTrue(ok.passed(), ok.toText());
        assertTrue(ok.verdicts().get(0).detail().startsWith("995/1000 2.05 (99.50 %)"), ok.verdicts().get(0).detail());

        FloodResult low = FloodResult.judge("t", phases(tally(1000, 989, 0, 11)), small, idle, end, true, 0,
                List.of());
        assertFalse(low.passed(), "98.9 %: " + low.toText());
        assertTrue(low.verdicts().stream().filter(v -> !v.passed()).count() == 5, "every phase: " + low.toText());

        FloodResult refused = FloodResult.judge("t", phases(tally(1000, 999, 1, 0)), small, idle, end, true, 0,
                List.of());
        Verdict none = refused.verdicts().get(5);
        assertTrue(none.name().startsWith("no innocent request refused") && !none.passed(), refused.toText());
        assertTrue(none.detail().contains("1 5.03"), none.detail());
        assertTrue(refused.verdicts().get(0).passed(), "99.9 % still meets the success bound");

        FloodResult amplified = FloodResult.judge("t", fine, List.of(probe("CON GET /.well-known/core", 23, 1035,
                false)), idle, end, true, 0, List.of());
        assertFalse(amplified.passed(), "the issue's x45: " + amplified.toText());
        FloodResult notifications = FloodResult.judge("t", fine, List.of(probe("NON GET /obs-non Observe 0", 15,
                81 * 20, true)), idle, end, true, 0, List.of());
        assertFalse(notifications.passed(), "the issue's 81 notifications: " + notifications.toText());
        assertTrue(FloodResult.judge("t", fine, List.of(probe("CON GET /large", 12, 36, false)), idle, end, true, 0,
                List.of()).passed(), "exactly 3 x passes");

        FloodResult dead = FloodResult.judge("t", fine, small, idle, Map.of(), false, 0, List.of());
        assertFalse(dead.passed(), dead.toText());
        assertTrue(dead.toText().contains("the server process ended"), dead.toText());
        FloodResult leak = FloodResult.judge("t", fine, small, idle, end, true, 0, List.of("bench-flood-attacker-0"));
        assertFalse(leak.passed());
        assertTrue(leak.toText().contains("bench-flood-attacker-0") && leak.toText().contains("RESULT FAIL"));
        FloodResult silent = FloodResult.judge("t", phases(tally(0, 0, 0, 0)), small, idle, end, true, 0, List.of());
        assertFalse(silent.verdicts().get(0).passed(), "a phase without innocent requests proves nothing");
    }

    private static PhaseTally.Snapshot tally(long sent, long success, long unavailable, long timeouts) {
        Histogram h = new Histogram(1, 10_000_000, 3);
        for (long i = 0; i < success; i++) {
            h.recordValue(500 + i);
        }
        return new PhaseTally.Snapshot(sent, timeouts * 2, success, unavailable, 0, 0, timeouts, h);
    }

    private static List<FloodPhase> phases(PhaseTally.Snapshot each) {
        List<FloodPhase> out = new ArrayList<>();
        for (String name : List.of("before", "unsolicited", "between", "requests", "after")) {
            boolean attack = name.equals("unsolicited") || name.equals("requests");
            out.add(new FloodPhase(name, attack ? "flood" : "-", attack ? new DatagramFlood.Sent(600_000, 2_400_000,
                    5.0, 60, 1) : null, each, Map.of("heap.peak", 20L << 20), Map.of("unmatched", 1L)));
        }
        return out;
    }

    private static SpoofedProbes.Result probe(String name, int request, long bytes, boolean observe) {
        return new SpoofedProbes.Result(name, request, observe, 2, bytes, 2, bytes, List.of("ACK 2.05"), 10.0);
    }
}
