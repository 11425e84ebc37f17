package io.stagecoach.examples.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** One in-process run of a command: exit status, stdout and stderr. */
record CommandRun(int status, String out, String err) {

    static CommandRun clientWithStdin(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ClientCommand.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CommandRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static CommandRun client(String... args) {
        return clientWithStdin("", args);
    }

    @Override
    public String toString() {
        return "exit " + status + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
}
