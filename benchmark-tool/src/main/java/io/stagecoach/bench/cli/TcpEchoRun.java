package io.stagecoach.bench.cli;

import io.stagecoach.bench.tcp.CoapTcpLoad;
import java.io.IOException;

/**
 * {@code stagecoach bench tcp-echo-server [--port N] [--bind ADDR] [--io epoll|uring]}: runs the C
 * tool's answering server (2.05 "hello world" to every coap+tcp request frame) until this process
 * ends, on epoll (default) or io_uring.
 */
final class TcpEchoRun {

    private TcpEchoRun() {
    }

    static int main(String[] args) throws IOException, InterruptedException {
        String port = "5683";
        String bind = "127.0.0.1";
        String io = "epoll";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = value(args, ++i);
                case "--bind" -> bind = value(args, ++i);
                case "--io" -> io = CoapTcpLoad.io(value(args, ++i));
                default -> throw new IllegalArgumentException("tcp-echo-server: unknown option " + args[i]);
            }
        }
        Process p = new ProcessBuilder(CoapTcpLoad.build().binary().toString(), "echo", "--host", bind, "--port", port,
                "--io", io)
                .inheritIO().start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroy, "tcp-echo-shutdown"));
        return p.waitFor();
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }
}
