package io.stagecoach.core.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the interop peers' executables and decides what a test does when one is missing.
 *
 * <p>libcoap's binaries are searched on {@code PATH}; aiocoap's in {@code $STAGECOACH_AIOCOAP_BIN}
 * if set, else in {@code .venv-interop/bin} under the repository root (the nearest ancestor of the
 * working directory that holds {@code .ci/run}). A missing peer aborts the test with the install
 * step on a developer machine, and fails it when {@code CI=true}, so CI can never pass by skipping
 * (.ci/check-no-skipped-interop checks the reports as well).
 */
public final class InteropPeers {

    /** Names the directory holding aiocoap-client and aiocoap-fileserver; set by .ci/run. */
    public static final String AIOCOAP_BIN_ENV = "STAGECOACH_AIOCOAP_BIN";
    static final String VENV_BIN = ".venv-interop/bin";

    private final Map<String, String> env;
    private final Path workingDirectory;

    InteropPeers(Map<String, String> env, Path workingDirectory) {
        this.env = Map.copyOf(env);
        this.workingDirectory = workingDirectory.toAbsolutePath().normalize();
    }

    /** Peers as seen by this JVM: its environment and working directory. */
    public static InteropPeers fromEnvironment() {
        return new InteropPeers(System.getenv(), Path.of(System.getProperty("user.dir")));
    }

    /** The executable of {@code peer}, if present and executable. */
    public Optional<Path> locate(Peer peer) {
        Objects.requireNonNull(peer, "peer");
        if (peer.source() == Peer.Source.PATH) {
            String path = env.getOrDefault("PATH", "");
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    Optional<Path> found = executableIn(Path.of(dir), peer);
                    if (found.isPresent()) {
                        return found;
                    }
                }
            }
            return Optional.empty();
        }
        String bin = env.get(AIOCOAP_BIN_ENV);
        if (bin != null && !bin.isBlank()) {
            return executableIn(Path.of(bin), peer);
        }
        return repositoryRoot().flatMap(root -> executableIn(root.resolve(VENV_BIN), peer));
    }

    /**
     * The executable of {@code peer}, or the end of the calling test: aborted (skipped) with the
     * install step when it is missing on a developer machine, failed when it is missing under
     * {@code CI=true}.
     */
    public Path assumePeer(Peer peer) {
        Optional<Path> found = locate(peer);
        if (found.isPresent()) {
            return found.get();
        }
        String message = missingMessage(peer);
        if (isCi()) {
            return fail(message + " (CI=true: interop tests must run, not skip)");
        }
        Assumptions.abort(message);
        throw new AssertionError("unreachable: Assumptions.abort returned");
    }

    /** Whether this run is CI's ({@code CI=true}), where a missing peer is a failure. */
    public boolean isCi() {
        return "true".equalsIgnoreCase(env.getOrDefault("CI", "").trim());
    }

    String missingMessage(Peer peer) {
        String where = peer.source() == Peer.Source.PATH
                ? "on the PATH"
                : env.containsKey(AIOCOAP_BIN_ENV)
                        ? "in $" + AIOCOAP_BIN_ENV + "=" + env.get(AIOCOAP_BIN_ENV)
                        : "in " + repositoryRoot().map(r -> r.resolve(VENV_BIN).toString()).orElse(VENV_BIN)
                                + " (or $" + AIOCOAP_BIN_ENV + ")";
        return "interop peer " + peer.executable() + " not found " + where + "; install it: " + peer.installHint()
                + "; or run .ci/install-interop-peers as root (docs/interop.md)";
    }

    /** The nearest ancestor of the working directory (itself included) that holds {@code .ci/run}. */
    public Optional<Path> repositoryRoot() {
        for (Path dir = workingDirectory; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(".ci").resolve("run"))) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> executableIn(Path dir, Peer peer) {
        Path candidate = dir.resolve(peer.executable());
        return Files.isRegularFile(candidate) && Files.isExecutable(candidate) ? Optional.of(candidate) : Optional.empty();
    }
}
