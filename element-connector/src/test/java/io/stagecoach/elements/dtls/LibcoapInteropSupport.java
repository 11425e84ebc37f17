package io.stagecoach.elements.dtls;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs libcoap's command-line peers; tests skip only when the binary is missing. */
final class LibcoapInteropSupport {

    private LibcoapInteropSupport() {
    }

    static String binary(String name) {
        File f = new File("/usr/bin/" + name);
        assumeTrue(f.canExecute(), name + " is not installed");
        return f.getPath();
    }

    /** Runs a client to completion (bounded) and returns what it printed. */
    static String run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    static Path pem(Path dir, String name, String type, byte[] der) throws IOException {
        StringWriter w = new StringWriter();
        w.write("-----BEGIN " + type + "-----\n");
        w.write(Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der));
        w.write("\n-----END " + type + "-----\n");
        Path file = dir.resolve(name);
        Files.writeString(file, w.toString());
        return file;
    }

    static Path certPem(Path dir, String name, X509Certificate... certs) throws Exception {
        StringBuilder all = new StringBuilder();
        for (X509Certificate c : certs) {
            all.append(Files.readString(pem(dir, name + ".tmp", "CERTIFICATE", c.getEncoded())));
        }
        Path file = dir.resolve(name);
        Files.writeString(file, all.toString());
        return file;
    }

    static Path keyPem(Path dir, String name, PrivateKey key) throws IOException {
        return pem(dir, name, "PRIVATE KEY", key.getEncoded());
    }
}
