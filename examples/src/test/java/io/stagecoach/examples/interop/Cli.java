package io.stagecoach.examples.interop;

import io.stagecoach.examples.cli.ClientCommand;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** {@code ./stagecoach client ARGS} run in-process: exit status, stdout, stderr. */
record Cli(String command, int status, String out, String err) {

    static Cli run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ClientCommand.run(args, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Cli("./stagecoach client " + String.join(" ", args), status,
                out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return command + " -> exit " + status + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
}
