package io.stagecoach.bench.dist;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * The master's connection to one slave: sends a line, reads the answer with a deadline (a
 * slave that does not answer in time, or whose connection breaks, raises an IOException; the
 * master reports it and carries on without it).
 */
final class SlaveLink implements AutoCloseable {

    private static final int CONNECT_TIMEOUT_MS = 5_000;
    private static final int REPLY_TIMEOUT_MS = 5_000;

    final String name;
    private final Socket socket;
    private final BufferedReader in;
    private final Writer out;
    /** Slave clock minus master clock, ms, from the best TIME probe. */
    long offsetMs;
    long rttMs;
    boolean dead;

    private SlaveLink(String name, Socket socket) throws IOException {
        this.name = name;
        this.socket = socket;
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        this.out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
    }

    /** Connects and exchanges HELLO; IOException naming the slave on any failure. */
    static SlaveLink connect(String hostPort) throws IOException {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("slave must be HOST:PORT, got '" + hostPort + "'");
        }
        String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
        int port = Integer.parseInt(hostPort.substring(colon + 1));
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            s.setTcpNoDelay(true);
            SlaveLink link = new SlaveLink(hostPort, s);
            ControlProtocol.Line hello = link.call(ControlProtocol.line("HELLO", "version", ControlProtocol.VERSION),
                    System.currentTimeMillis() + REPLY_TIMEOUT_MS);
            if (!hello.verb().equals("HELLO") || !ControlProtocol.VERSION.equals(hello.args().get("version"))) {
                throw new IOException("slave " + hostPort + " speaks another protocol: " + hello.encode());
            }
            return link;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e instanceof IOException io && io.getMessage() != null && io.getMessage().startsWith("slave")
                    ? io : new IOException("slave " + hostPort + ": " + e.getMessage(), e);
        }
    }

    /** NTP-style offset: of five TIME probes the one with the shortest round trip wins. */
    void syncClock() throws IOException {
        long bestRtt = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long t0 = System.currentTimeMillis();
            ControlProtocol.Line t = call(ControlProtocol.line("TIME"), t0 + REPLY_TIMEOUT_MS);
            long t1 = System.currentTimeMillis();
            if (t1 - t0 < bestRtt) {
                bestRtt = t1 - t0;
                offsetMs = t.getLong("now") - (t0 + t1) / 2;
            }
        }
        rttMs = bestRtt;
    }

    void send(ControlProtocol.Line line) throws IOException {
        out.write(line.encode());
        out.write('\n');
        out.flush();
    }

    /** Reads one line, giving up at {@code deadlineEpochMs}; ERROR lines become IOExceptions. */
    ControlProtocol.Line read(long deadlineEpochMs) throws IOException {
        socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, deadlineEpochMs - System.currentTimeMillis())));
        String text;
        try {
            text = in.readLine();
        } catch (SocketTimeoutException e) {
            throw new IOException("slave " + name + " did not answer in time", e);
        }
        if (text == null) {
            throw new IOException("slave " + name + " closed the connection");
        }
        ControlProtocol.Line line;
        try {
            line = ControlProtocol.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IOException("slave " + name + " sent a malformed line: " + e.getMessage(), e);
        }
        if (line.verb().equals("ERROR")) {
            throw new IOException("slave " + name + " failed: " + line.args().get("message"));
        }
        return line;
    }

    ControlProtocol.Line call(ControlProtocol.Line line, long deadlineEpochMs) throws IOException {
        send(line);
        return read(deadlineEpochMs);
    }

    @Override
    public void close() {
        try {
            if (!dead && !socket.isClosed()) {
                call(ControlProtocol.line("BYE"), System.currentTimeMillis() + 1_000);
            }
        } catch (IOException e) {
            // leaving anyway
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closed
        }
    }
}
