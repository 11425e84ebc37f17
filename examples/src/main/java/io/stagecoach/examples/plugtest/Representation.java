package io.stagecoach.examples.plugtest;

import io.stagecoach.core.coap.ContentFormat;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * An immutable stored body and its Content-Format (RFC 7252 §5.10.3), as the updatable plugtest
 * resources keep it. The body is copied in and out.
 */
final class Representation {

    private final byte[] body;
    private final ContentFormat contentFormat;

    Representation(byte[] body, ContentFormat contentFormat) {
        this.body = body.clone();
        this.contentFormat = contentFormat;
    }

    static Representation text(String text) {
        return new Representation(text.getBytes(StandardCharsets.UTF_8), ContentFormat.TEXT_PLAIN);
    }

    byte[] body() {
        return body.clone();
    }

    ContentFormat contentFormat() {
        return contentFormat;
    }

    /**
     * A 4-byte ETag derived from body and format (RFC 7252 §5.10.6): it changes whenever the
     * representation does (up to SHA-256 collisions).
     */
    byte[] etag() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(body);
            sha.update((byte) (contentFormat.number() >> 8));
            sha.update((byte) contentFormat.number());
            return Arrays.copyOf(sha.digest(), 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
