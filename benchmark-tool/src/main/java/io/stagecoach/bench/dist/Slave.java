package io.stagecoach.bench.dist;

import io.stagecoach.bench.load.LoadSpec;
import io.stagecoach.bench.load.StepClock;
import io.stagecoach.bench.load.StepListener;
import io.stagecoach.bench.load.StepResult;
import io.stagecoach.bench.load.StepRunner;
import io.stagecoach.elements.concurrent.NamedThreadFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;

/**
 * {@code stagecoach bench slave --listen PORT}: waits for a master (one at a time), runs the
 * steps it is told to at the synchronized start time and answers with counters and the encoded
 * histogram ({@link ControlProtocol}). Runs external commands only when started with
 * {@code --allow-exec}: anyone who can reach the port could otherwise run commands here.
 */
public final class Slave implements AutoCloseable {

    /** A master that says nothing for this long is dropped. */
    private static final int IDLE_TIMEOUT_MS = 30 * 60 * 1000;
    private static final long MAX_START_DELAY_MS = 60_000;

    private final ServerSocket server;
    private final boolean allowExec;
    private final NamedThreadFactory threads = new NamedThreadFactory("bench-slave", true);
    private volatile Socket session;
    private volatile boolean closed;

    private final StepClock clock;

    private Slave(ServerSocket server, boolean allowExec, StepClock clock) {
        this.server = server;
        this.allowExec = allowExec;
        this.clock = clock;
    }

    /** Listens on {@code address} (port 0 = any) and serves masters on a background thread. */
    public static Slave start(InetSocketAddress address, boolean allowExec) throws IOException {
        return start(address, allowExec, StepClock.system());
    }

    /** As {@link #start(InetSocketAddress, boolean)}, the steps' phases timed on {@code clock}. */
    public static Slave start(InetSocketAddress address, boolean allowExec, StepClock clock) throws IOException {
        ServerSocket ss = new ServerSocket();
        try {
            ss.bind(address);
        } catch (IOException e) {
            ss.close();
            throw new IOException("slave cannot listen on " + address + ": " + e.getMessage(), e);
        }
        Slave slave = new Slave(ss, allowExec, clock);
        slave.threads.newThread(slave::acceptLoop).start();
        return slave;
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    private void acceptLoop() {
        while (!closed) {
            try (Socket s = server.accept()) {
                session = s;
                s.setSoTimeout(IDLE_TIMEOUT_MS);
                s.setTcpNoDelay(true);
                serve(s);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("slave: session ended: " + e.getMessage());
                }
            } finally {
                session = null;
            }
        }
    }

    private void serve(Socket s) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8), true);
        ControlProtocol.Line hello = ControlProtocol.parse(in.readLine());
        if (!hello.verb().equals("HELLO") || !ControlProtocol.VERSION.equals(hello.args().get("version"))) {
            send(out, ControlProtocol.line("ERROR", "message", "unsupported protocol: expected HELLO version="
                    + ControlProtocol.VERSION));
            return;
        }
        send(out, ControlProtocol.line("HELLO", "version", ControlProtocol.VERSION, "now", System.currentTimeMillis(),
                "cores", Runtime.getRuntime().availableProcessors()));
        while (true) {
            String text = in.readLine();
            if (text == null) {
                return;
            }
            ControlProtocol.Line reply;
            try {
                ControlProtocol.Line cmd = ControlProtocol.parse(text);
                reply = switch (cmd.verb()) {
                    case "TIME" -> ControlProtocol.line("TIME", "now", System.currentTimeMillis());
                    case "RUN" -> runStep(cmd);
                    case "EXEC" -> exec(cmd);
                    case "BYE" -> ControlProtocol.line("BYE");
                    default -> throw new IllegalArgumentException("unknown command " + cmd.verb());
                };
            } catch (IllegalArgumentException | IOException e) {
                reply = ControlProtocol.line("ERROR", "message", String.valueOf(e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            send(out, reply);
            if (reply.verb().equals("BYE")) {
                return;
            }
        }
    }

    private ControlProtocol.Line runStep(ControlProtocol.Line cmd) throws IOException, InterruptedException {
        LoadSpec spec = ControlProtocol.loadSpec(cmd);
        StepRunner runner = new StepRunner(spec, spec.uri().resolve(), clock);
        long late = waitUntil(cmd.getLong("start"));
        StepResult r = runner.run((int) cmd.getLong("concurrency"), StepListener.NONE);
        return ControlProtocol.result(r, late);
    }

    private ControlProtocol.Line exec(ControlProtocol.Line cmd) throws IOException, InterruptedException {
        if (!allowExec) {
            throw new IllegalArgumentException("this slave does not run commands (start it with --allow-exec)");
        }
        long late = waitUntil(cmd.getLong("start"));
        ThirdParty.Outcome o = ThirdParty.run(cmd.get("cmd"), cmd.getLong("timeout_ms"));
        return ControlProtocol.line("EXEC", "exit", o.exitCode(), "late_ms", late,
                "output", Base64.getEncoder().encodeToString(o.output().getBytes(StandardCharsets.UTF_8)));
    }

    /** Sleeps until the epoch-millisecond {@code start}; returns how late we are (0 if on time). */
    private static long waitUntil(long start) throws InterruptedException {
        long wait = start - System.currentTimeMillis();
        if (wait > MAX_START_DELAY_MS) {
            throw new IllegalArgumentException("start time is " + wait + " ms away (max " + MAX_START_DELAY_MS + ")");
        }
        if (wait > 0) {
            Thread.sleep(wait);
        }
        return Math.max(0, System.currentTimeMillis() - start);
    }

    private static void send(PrintWriter out, ControlProtocol.Line line) {
        out.print(line.encode());
        out.print('\n');
        out.flush();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
            Socket s = session;
            if (s != null) {
                s.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
        threads.joinAll(Duration.ofSeconds(5));
    }

    /** {@code slave --listen PORT [--bind ADDR] [--allow-exec]}: serves until killed. */
    public static int main(String[] args) throws IOException, InterruptedException {
        int port = -1;
        String bind = "0.0.0.0";
        boolean allowExec = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--listen" -> port = Integer.parseInt(arg(args, ++i));
                case "--bind" -> bind = arg(args, ++i);
                case "--allow-exec" -> allowExec = true;
                default -> throw new IllegalArgumentException("slave: unknown option " + args[i]);
            }
        }
        if (port < 0) {
            throw new IllegalArgumentException("slave needs --listen PORT");
        }
        Slave slave = start(new InetSocketAddress(bind, port), allowExec);
        System.err.println("slave listening on tcp " + slave.address() + (allowExec ? " (exec allowed)" : ""));
        Runtime.getRuntime().addShutdownHook(new Thread(slave::close, "stagecoach-bench-slave-shutdown"));
        new CountDownLatch(1).await();
        return 0;
    }

    private static String arg(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException("slave: " + args[i - 1] + " needs a value");
        }
        return args[i];
    }
}
