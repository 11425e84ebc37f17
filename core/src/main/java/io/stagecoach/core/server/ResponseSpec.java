package io.stagecoach.core.server;

import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Response;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Fluent access to the response a handler is about to send, for what the short
 * {@code respond(...)} forms do not cover:
 *
 * <pre>{@code
 * ex.respond(Code.CREATED, r -> r.locationPath("large-create", "7"));
 * ex.respond(Code.CONTENT, r -> r.payload(body, ContentFormat.JSON).etag(tag).maxAge(30));
 * }</pre>
 *
 * Token and peer are set by {@link CoapExchange} and cannot be changed here; type and MID are
 * the message layer's. Every setter validates as {@link OptionSet.Builder} does.
 */
public final class ResponseSpec {

    private final Response.Builder builder;

    ResponseSpec(Response.Builder builder) {
        this.builder = builder;
    }

    /** UTF-8 text with Content-Format 0 (text/plain;charset=utf-8). */
    public ResponseSpec payload(String text) {
        return payload(text.getBytes(StandardCharsets.UTF_8), ContentFormat.TEXT_PLAIN);
    }

    /** A payload and its Content-Format (RFC 7252 §5.10.3). */
    public ResponseSpec payload(byte[] payload, ContentFormat format) {
        builder.payload(payload).contentFormat(format);
        return this;
    }

    /** Content-Format (RFC 7252 §5.10.3). */
    public ResponseSpec contentFormat(ContentFormat format) {
        builder.contentFormat(Objects.requireNonNull(format, "format"));
        return this;
    }

    /** Adds an ETag (RFC 7252 §5.10.6), 1..8 bytes. */
    public ResponseSpec etag(byte[] etag) {
        builder.options().addEtag(etag);
        return this;
    }

    /** Max-Age in seconds (RFC 7252 §5.10.5). */
    public ResponseSpec maxAge(long seconds) {
        builder.options().maxAge(seconds);
        return this;
    }

    /** Location-Path segments, none containing '/' (RFC 7252 §5.10.7). */
    public ResponseSpec locationPath(String... segments) {
        for (String s : segments) {
            if (s.indexOf('/') >= 0 || s.equals(".") || s.equals("..")) {
                throw new IllegalArgumentException("Location-Path segment '" + s + "' must not contain '/' or be '.' or '..'");
            }
        }
        builder.options().locationPath(List.of(segments));
        return this;
    }

    /** Location-Query arguments, none containing '?' or '&amp;' (RFC 7252 §5.10.7). */
    public ResponseSpec locationQuery(String... args) {
        for (String a : args) {
            if (a.indexOf('?') >= 0 || a.indexOf('&') >= 0) {
                throw new IllegalArgumentException("Location-Query argument '" + a + "' must not contain '?' or '&'");
            }
        }
        builder.options().locationQuery(List.of(args));
        return this;
    }

    /** Every other option: {@code r.options().size2(1280)}. */
    public OptionSet.Builder options() {
        return builder.options();
    }
}
