package io.stagecoach.bench.compare;

import io.stagecoach.bench.c.NativeTool;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One server of compare mode: a name, a shell command with a {@code {port}} placeholder and the
 * URI path to request. Parsed from {@code --server-cmd NAME[:PATH]=COMMAND}.
 */
public record ServerSpec(String name, String path, String command, String description) {

    public ServerSpec(String name, String path, String command) {
        this(name, path, command, command);
    }

    public static ServerSpec parse(String text, String defaultPath) {
        int eq = text.indexOf('=');
        if (eq <= 0 || eq == text.length() - 1) {
            throw new IllegalArgumentException("--server-cmd needs NAME[:PATH]=COMMAND, got '" + text + "'");
        }
        String head = text.substring(0, eq);
        int colon = head.indexOf(':');
        String name = colon < 0 ? head : head.substring(0, colon);
        String path = colon < 0 ? defaultPath : head.substring(colon + 1);
        return new ServerSpec(name, path, text.substring(eq + 1));
    }

    /**
     * The servers to compare that this machine has, in this order: Stagecoach
     * ({@code ./stagecoach server}, skipped at run time if that command does not exist yet),
     * Eclipse Californium 3.13.0 with its default deduplicator and with NO_DEDUPLICATOR
     * ({@code bench cf-server}), libcoap's {@code coap-server-notls} (path {@code /}) when on the
     * PATH, and the JDK echo server (the socket ceiling). JVM servers started here get this JVM's
     * flags and class path.
     */
    public static List<ServerSpec> defaults(String path) {
        List<ServerSpec> out = new ArrayList<>();
        Path launcher = Path.of("stagecoach").toAbsolutePath();
        if (Files.isExecutable(launcher)) {
            out.add(new ServerSpec("stagecoach", path, launcher + " server --port {port}"));
        }
        out.add(benchJvm("californium", path, "cf-server --bind 127.0.0.1 --port {port}"));
        out.add(benchJvm("californium-nodedup", path, "cf-server --bind 127.0.0.1 --port {port} --no-dedup"));
        if (onPath("coap-server-notls")) {
            out.add(new ServerSpec("libcoap", "", "coap-server-notls -A 127.0.0.1 -p {port}"));
        }
        out.add(benchJvm("jdk-echo", path, "echo-server --bind 127.0.0.1 --port {port}"));
        return out;
    }

    /** {@code tcp.max-connections-per-address} of the Stagecoach servers in a coap+tcp compare. */
    public static final int TCP_CONNECTIONS_PER_ADDRESS = 100_000;

    /**
     * The {@code coap+tcp} servers to compare: Stagecoach with Netty's native epoll transport
     * (its default on Linux) and with the JDK's NIO ({@code tcp.native-transport=false}), both
     * with the UDP endpoint on a free port beside them and {@code tcp.max-connections-per-address}
     * raised to {@value #TCP_CONNECTIONS_PER_ADDRESS} (every connection of the generator comes
     * from 127.0.0.1; the default, 64, is for devices); Californium 3.13.0's TCP connector
     * ({@code bench cf-server --tcp}); libcoap's {@code coap-server-notls} (path {@code /}), which
     * serves TCP on its UDP port; and {@code echo}, the answering server in C that measures the
     * generator's ceiling.
     */
    public static List<ServerSpec> tcpDefaults(String path, String echoCommand) {
        List<ServerSpec> out = new ArrayList<>();
        Path launcher = Path.of("stagecoach").toAbsolutePath();
        if (Files.isExecutable(launcher)) {
            // every generator connection comes from 127.0.0.1: lift the per-address limit (64)
            String limit = "-Dstagecoach.tcp.max-connections-per-address=" + TCP_CONNECTIONS_PER_ADDRESS;
            String server = launcher + " server --bind 127.0.0.1 --port 0 --tcp-port {port}";
            out.add(new ServerSpec("stagecoach-epoll", path, "env STAGECOACH_JAVA_OPTS=" + limit + " " + server));
            out.add(new ServerSpec("stagecoach-nio", path, "env 'STAGECOACH_JAVA_OPTS=" + limit
                    + " -Dstagecoach.tcp.native-transport=false' " + server));
        }
        out.add(benchJvm("californium-tcp", path, "cf-server --tcp --bind 127.0.0.1 --port {port}"));
        if (onPath("coap-server-notls")) {
            out.add(new ServerSpec("libcoap", "", "coap-server-notls -A 127.0.0.1 -p {port}"));
        }
        if (echoCommand != null) {
            out.add(new ServerSpec("echo", path, echoCommand));
        }
        return out;
    }

    /**
     * The C echo {@code udp-echo} (recvmmsg/sendmmsg, 64 datagrams per call), started directly so
     * that its own CPU time is what is watched.
     */
    public static ServerSpec cEcho(String path) throws IOException {
        return new ServerSpec("c-echo", path, NativeTool.binary("udp-echo") + " --bind 127.0.0.1 --port {port}");
    }

    /** A {@code stagecoach bench SUBCOMMAND} server in a JVM with this JVM's flags and class path. */
    static ServerSpec benchJvm(String name, String path, String subcommand) {
        String args = " io.stagecoach.bench.BenchMain bench " + subcommand;
        return new ServerSpec(name, path, javaCommand() + args, "java (this JVM's flags and class path)" + args);
    }

    /** This JVM's java binary, flags and class path, shell-quoted. */
    static String javaCommand() {
        StringBuilder sb = new StringBuilder(quote(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            sb.append(' ').append(quote(arg));
        }
        return sb.append(" -cp ").append(quote(System.getProperty("java.class.path"))).toString();
    }

    private static boolean onPath(String exe) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, exe))) {
                return true;
            }
        }
        return false;
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
