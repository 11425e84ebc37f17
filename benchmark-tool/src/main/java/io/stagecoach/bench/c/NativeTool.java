package io.stagecoach.bench.c;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's C programs ({@code coap-load}, {@code udp-echo}), kept as sources on the class
 * path and compiled with {@code gcc -O2} on first use into
 * {@code ${java.io.tmpdir}/stagecoach-bench-native/NAME-HASH}, the hash being that of the source:
 * a changed source gets a new binary. The tools share {@value #HEADER} (clock, CPU time), which
 * is written beside each source and counted in the hash. They are benchmark instruments only:
 * nothing of the product or of CI builds or runs them.
 */
public final class NativeTool {

    private static final String RESOURCE_DIR = "/io/stagecoach/bench/native/";
    static final String HEADER = "coap-tool.h";

    private NativeTool() {
    }

    /**
     * The binary of tool {@code name}, compiled if needed.
     *
     * @throws IOException when the source is missing, gcc is not installed or compiling fails
     */
    public static synchronized Path binary(String name) throws IOException {
        byte[] source = resource(name + ".c");
        byte[] header = resource(HEADER);
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "stagecoach-bench-native");
        Files.createDirectories(dir);
        Path binary = dir.resolve(name + "-" + hash(source, header));
        if (Files.isExecutable(binary)) {
            return binary;
        }
        // a directory of its own: another JVM may compile the same tool at the same time
        Path work = Files.createTempDirectory(dir, name);
        Path src = work.resolve(name + ".c");
        Path out = work.resolve(name + ".out");
        try {
            Files.write(work.resolve(HEADER), header);
            Files.write(src, source);
            Process gcc;
            try {
                gcc = new ProcessBuilder("gcc", "-O2", "-o", out.toString(), src.toString())
                        .redirectErrorStream(true).start();
            } catch (IOException e) {
                throw new IOException("the C tools need gcc (apt-get install gcc): " + e.getMessage(), e);
            }
            String log = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                throw new IOException("gcc failed on " + name + ".c: " + log.trim());
            }
            // another JVM may have compiled it meanwhile: the move replaces an identical binary
            Files.move(out, binary, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return binary;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while compiling " + name, e);
        } finally {
            Files.deleteIfExists(src);
            Files.deleteIfExists(out);
            Files.deleteIfExists(work.resolve(HEADER));
            Files.deleteIfExists(work);
        }
    }

    private static byte[] resource(String file) throws IOException {
        try (InputStream in = NativeTool.class.getResourceAsStream(RESOURCE_DIR + file)) {
            if (in == null) {
                throw new IOException("no C source " + file + " on the class path");
            }
            return in.readAllBytes();
        }
    }

    private static String hash(byte[] source, byte[] header) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(header);
            byte[] d = sha.digest(source);
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /**
     * {@code stagecoach bench c-echo [--bind ADDR] [--port N] [--batch N]}: runs {@code udp-echo}
     * in the foreground (this JVM waits for it and ends it when killed).
     */
    public static int echoMain(String[] args) throws IOException, InterruptedException {
        String[] argv = new String[args.length + 1];
        argv[0] = binary("udp-echo").toString();
        System.arraycopy(args, 0, argv, 1, args.length);
        Process p = new ProcessBuilder(argv).inheritIO().start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroy, "stagecoach-c-echo-shutdown"));
        return p.waitFor();
    }
}
