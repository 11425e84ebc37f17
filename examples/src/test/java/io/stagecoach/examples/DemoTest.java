package io.stagecoach.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.elements.testing.ThreadLeakCheck;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code ./stagecoach demo} in-process: exit status, the codes it printed, nothing left running. */
class DemoTest {

    @Test
    void tourPrintsEveryStepAndExitsZero() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Demo.run(new String[0], new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, "demo exit status; stdout:\n" + printed + "\nstderr:\n" + err);
        List<String> answers = printed.lines().filter(l -> l.startsWith("< ")).toList();
        assertEquals(9, answers.size(), "one answer line per step:\n" + printed);
        assertTrue(answers.get(0).startsWith("< ACK 2.05 Content") && answers.get(0).contains("Hello, CoAP!"), answers.get(0));
        assertTrue(answers.get(1).startsWith("< ACK 2.01 Created  Location-Path: /items/1"), answers.get(1));
        assertTrue(answers.get(2).startsWith("< ACK 2.04 Changed"), answers.get(2));
        assertTrue(answers.get(3).contains("\"oat milk\""), answers.get(3));
        assertTrue(answers.get(4).startsWith("< ACK 2.02 Deleted"), answers.get(4));
        assertTrue(answers.get(5).startsWith("< ACK 4.04 Not Found"), answers.get(5));
        assertTrue(answers.get(6).contains("/sensors/temp") && !answers.get(6).contains("humidity"), answers.get(6));
        assertTrue(answers.get(7).startsWith("< CON 2.05 Content") && answers.get(7).contains("computed later"),
                "separate response: " + answers.get(7));
        assertTrue(answers.get(8).contains("RST"), answers.get(8));
        assertTrue(printed.contains("demo done"), printed);
        assertTrue(printed.contains("./stagecoach server --ws-port 8080") && printed.contains("docs/explorer.md"),
                "the last line points to the explorer: " + printed);
        ThreadLeakCheck.assertNoStagecoachThreads();
    }
}
