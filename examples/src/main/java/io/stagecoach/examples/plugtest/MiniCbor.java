package io.stagecoach.examples.plugtest;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The few CBOR (RFC 8949) items {@code /multi-format} needs: a definite-length map header, text
 * strings and unsigned integers (major types 5, 3 and 0, §3.1), shortest head form (§4.2.1).
 */
final class MiniCbor {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    MiniCbor mapHeader(int pairs) {
        head(5, pairs);
        return this;
    }

    MiniCbor text(String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        head(3, utf8.length);
        out.writeBytes(utf8);
        return this;
    }

    MiniCbor unsigned(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("unsigned CBOR integer must be >= 0, got " + value);
        }
        head(0, value);
        return this;
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    private void head(int major, long argument) {
        int mt = major << 5;
        if (argument < 24) {
            out.write(mt | (int) argument);
        } else if (argument < 0x100) {
            out.write(mt | 24);
            out.write((int) argument);
        } else if (argument < 0x10000) {
            out.write(mt | 25);
            writeBigEndian(argument, 2);
        } else if (argument < 0x1_0000_0000L) {
            out.write(mt | 26);
            writeBigEndian(argument, 4);
        } else {
            out.write(mt | 27);
            writeBigEndian(argument, 8);
        }
    }

    private void writeBigEndian(long value, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) {
            out.write((int) (value >>> (8 * i)));
        }
    }
}
