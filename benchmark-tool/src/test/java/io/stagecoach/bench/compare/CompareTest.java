package io.stagecoach.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.Option;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageParser;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class CompareTest {

    @TempDir
    Path dir;

    @Test
    void serverCmdIsNamePathAndCommand() {
        ServerSpec s = ServerSpec.parse("libcoap:=coap-server-notls -p {port}", "benchmark");
        assertEquals("libcoap", s.name());
        assertEquals("", s.path());
        assertEquals("coap-server-notls -p {port}", s.command());
        ServerSpec t = ServerSpec.parse("mine=./run.sh --port={port}", "benchmark");
        assertEquals("benchmark", t.path(), "default path");
        assertEquals("./run.sh --port={port}", t.command(), "only the first '=' separates");
        assertThrows(IllegalArgumentException.class, () -> ServerSpec.parse("no-command", "x"));
        assertThrows(IllegalArgumentException.class, () -> ServerSpec.parse("=cmd", "x"));
    }

    @Test
    void defaultsAlwaysIncludeTheJdkEcho() {
        List<ServerSpec> d = ServerSpec.defaults("benchmark");
        assertTrue(d.stream().anyMatch(s -> s.name().equals("jdk-echo") && s.command().contains("echo-server")), d.toString());
    }

    @Test
    void probeIsAConGetWithTheUriPath() throws Exception {
        Message m = new UdpMessageParser().parse(ServerProcess.probe("a/benchmark"));
        assertTrue(m instanceof Request);
        assertEquals(Type.CON, m.type());
        assertEquals(List.of("a", "benchmark"),
                m.options().get(OptionNumber.URI_PATH).stream().map(Option::asString).toList());
        assertEquals(0, new UdpMessageParser().parse(ServerProcess.probe("")).options().size(), "empty path");
    }

    @Test
    void echoServerProcessComesUpAnswersAndIsStopped() throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ServerSpec echo = ServerSpec.defaults("benchmark").stream().filter(s -> s.name().equals("jdk-echo")).findFirst()
                .orElseThrow();
        ServerProcess p = ServerProcess.start("jdk-echo", echo.command(), port, null, dir.resolve("echo.log"));
        try {
            assertTrue(p.awaitReady(port, "benchmark", 20_000), "echo process answered a CON GET");
        } finally {
            p.close();
        }
        assertFalse(p.awaitReady(port, "benchmark", 500), "nothing answers after close");
    }
}
