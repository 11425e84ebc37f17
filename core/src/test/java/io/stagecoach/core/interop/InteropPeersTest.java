package io.stagecoach.core.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** The skip-or-fail decision and the search order of {@link InteropPeers}, on fake directories. */
class InteropPeersTest {

    @TempDir
    Path tmp;

    @Test
    void findsLibcoapOnThePathAndIgnoresNonExecutables() throws IOException {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path client = executable(bin.resolve("coap-client-notls"));
        Files.writeString(bin.resolve("coap-server-notls"), "not executable");
        InteropPeers peers = new InteropPeers(Map.of("PATH", empty + ":" + bin), tmp);

        assertEquals(Optional.of(client), peers.locate(Peer.LIBCOAP_CLIENT), "second PATH entry holds the client");
        assertEquals(Optional.empty(), peers.locate(Peer.LIBCOAP_SERVER), "a non-executable file is no peer");
    }

    @Test
    void missingPeerWithoutCiAbortsWithTheInstallStep() {
        InteropPeers peers = new InteropPeers(Map.of("PATH", tmp.toString()), tmp);

        TestAbortedException skipped = assertThrows(TestAbortedException.class,
                () -> peers.assumePeer(Peer.LIBCOAP_SERVER));
        assertTrue(skipped.getMessage().contains("coap-server-notls not found on the PATH"), skipped.getMessage());
        assertTrue(skipped.getMessage().contains("apt-get install libcoap3-bin"), skipped.getMessage());
    }

    @Test
    void missingPeerUnderCiFailsInsteadOfSkipping() {
        InteropPeers peers = new InteropPeers(Map.of("PATH", tmp.toString(), "CI", "true"), tmp);

        AssertionFailedError failed = assertThrows(AssertionFailedError.class,
                () -> peers.assumePeer(Peer.AIOCOAP_CLIENT));
        assertTrue(failed.getMessage().contains("pip install aiocoap==0.4.17"), failed.getMessage());
        assertTrue(failed.getMessage().contains("CI=true"), failed.getMessage());
    }

    @Test
    void ciOtherThanTrueStillSkips() {
        InteropPeers peers = new InteropPeers(Map.of("PATH", tmp.toString(), "CI", "false"), tmp);

        assertThrows(TestAbortedException.class, () -> peers.assumePeer(Peer.LIBCOAP_CLIENT));
    }

    @Test
    void aiocoapComesFromTheEnvironmentVariableFirst() throws IOException {
        Path bin = Files.createDirectories(tmp.resolve("venv/bin"));
        Path client = executable(bin.resolve("aiocoap-client"));
        InteropPeers peers = new InteropPeers(Map.of(InteropPeers.AIOCOAP_BIN_ENV, bin.toString()), tmp);

        assertEquals(client, peers.assumePeer(Peer.AIOCOAP_CLIENT));
        assertEquals(Optional.empty(), peers.locate(Peer.AIOCOAP_FILESERVER), "only the client was created");
    }

    @Test
    void aiocoapFallsBackToTheVenvUnderTheRepositoryRoot() throws IOException {
        Path root = tmp.resolve("checkout");
        executable(Files.createDirectories(root.resolve(".ci")).resolve("run"));
        Path fileserver = executable(Files.createDirectories(root.resolve(".venv-interop/bin"))
                .resolve("aiocoap-fileserver"));
        Path moduleDir = Files.createDirectories(root.resolve("core"));
        InteropPeers peers = new InteropPeers(Map.of(), moduleDir);

        assertEquals(Optional.of(root), peers.repositoryRoot(), "root is the ancestor holding .ci/run");
        assertEquals(fileserver, peers.assumePeer(Peer.AIOCOAP_FILESERVER));
        TestAbortedException skipped = assertThrows(TestAbortedException.class,
                () -> peers.assumePeer(Peer.AIOCOAP_CLIENT));
        assertTrue(skipped.getMessage().contains(root.resolve(".venv-interop/bin").toString()), skipped.getMessage());
    }

    private static Path executable(Path file) throws IOException {
        Files.writeString(file, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }
}
