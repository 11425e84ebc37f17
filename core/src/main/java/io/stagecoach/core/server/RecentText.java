package io.stagecoach.core.server;

import io.stagecoach.core.coap.Payload;

/**
 * The encoded text a resource answered with lately, so that a handler answering the same text
 * every time ({@code respond(CONTENT, "hello world")}) has it encoded once instead of once per
 * request. A text is kept when it is seen twice in a row; a handler whose text changes every time
 * keeps nothing and pays, beyond the encoding it paid anyway, a string comparison and the 24-byte
 * {@link Payload} around the bytes.
 *
 * <p>Handlers of one resource may run on several threads at once. The fields are plain: each
 * holds an immutable object (a {@link Payload}'s fields are final, a {@code String} is immutable),
 * so a thread reads either a stale entry, which {@link Payload#isUtf8Of} then rejects, or a
 * complete one; a lost update costs one extra encoding.
 */
final class RecentText {

    private Payload kept;
    private String lastMiss;

    /** {@code text} in UTF-8, the kept copy when it is the same text. */
    Payload encode(String text) {
        Payload p = kept;
        if (p != null && p.isUtf8Of(text)) {
            return p;
        }
        p = Payload.utf8(text);
        if (text == lastMiss) {
            kept = p; // the same text twice in a row: worth keeping
        } else {
            lastMiss = text;
        }
        return p;
    }
}
