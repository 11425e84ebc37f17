package io.stagecoach.core.coap;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The setters of {@link OptionSet.Builder}. Every setter validates against the option's
 * definition and throws {@link IllegalArgumentException} naming the option and the bound broken,
 * e.g. "Uri-Path value of 300 bytes exceeds the maximum length 255". Options are kept sorted by
 * number; repeated options keep insertion order (RFC 7252 §5.4.5).
 */
abstract class OptionSetBuilder {

    final List<Option> options = new ArrayList<>();

    OptionSetBuilder() {
    }

    private OptionSet.Builder self() {
        return (OptionSet.Builder) this;
    }

    /** The immutable set. The builder can be used further. */
    public OptionSet build() {
        return OptionSet.pack(options);
    }

    /**
     * Appends an option after any with the same or a smaller number.
     *
     * @throws IllegalArgumentException if the value breaks the definition, or the option is not
     *     repeatable and already present (use {@link #set(Option)})
     */
    public OptionSet.Builder add(Option option) {
        OptionNumber def = option.optionNumber();
        validate(def, option.length());
        if (def.isKnown() && !def.isRepeatable() && has(def.number())) {
            throw new IllegalArgumentException(def + " is not repeatable and is already set");
        }
        int i = options.size();
        while (i > 0 && options.get(i - 1).number() > option.number()) {
            i--;
        }
        options.add(i, option);
        return self();
    }

    /** Replaces every occurrence of the option's number by this one. */
    public OptionSet.Builder set(Option option) {
        validate(option.optionNumber(), option.length());
        remove(option.number());
        return add(option);
    }

    public OptionSet.Builder add(OptionNumber number, byte[] value) {
        return add(Option.of(number, value));
    }

    public OptionSet.Builder set(OptionNumber number, byte[] value) {
        return set(Option.of(number, value));
    }

    /** Removes every occurrence of {@code number}. */
    public OptionSet.Builder remove(int number) {
        options.removeIf(o -> o.number() == number);
        return self();
    }

    public OptionSet.Builder remove(OptionNumber number) {
        return remove(number.number());
    }

    public boolean has(int number) {
        for (Option o : options) {
            if (o.number() == number) {
                return true;
            }
        }
        return false;
    }

    private static void validate(OptionNumber def, int length) {
        if (length > def.maxLength()) {
            throw new IllegalArgumentException(def + " value of " + length
                    + " bytes exceeds the maximum length " + def.maxLength());
        }
        if (length < def.minLength()) {
            throw new IllegalArgumentException(def + " value of " + length
                    + " bytes is shorter than the minimum length " + def.minLength());
        }
    }

    private OptionSet.Builder setUint(OptionNumber n, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(n + " value must not be negative, got " + value);
        }
        byte[] v = Bytes.uint(value);
        if (v.length > n.maxLength()) {
            throw new IllegalArgumentException(n + " value " + value + " needs " + v.length
                    + " bytes and exceeds the maximum length " + n.maxLength());
        }
        return set(Option.wrap(n.number(), v));
    }

    private OptionSet.Builder setString(OptionNumber n, String value) {
        if (value == null) {
            return remove(n);
        }
        return set(Option.wrap(n.number(), value.getBytes(StandardCharsets.UTF_8)));
    }

    private OptionSet.Builder setStrings(OptionNumber n, List<String> values) {
        remove(n);
        for (String v : values) {
            add(Option.wrap(n.number(), v.getBytes(StandardCharsets.UTF_8)));
        }
        return self();
    }

    public OptionSet.Builder uriHost(String host) {
        return setString(OptionNumber.URI_HOST, host);
    }

    public OptionSet.Builder uriPort(int port) {
        return setUint(OptionNumber.URI_PORT, port);
    }

    /** Replaces the Uri-Path segments (not percent-encoded). */
    public OptionSet.Builder uriPath(List<String> segments) {
        return setStrings(OptionNumber.URI_PATH, segments);
    }

    /**
     * Replaces Uri-Path by the segments of a '/'-separated path ({@code "a/b"} or {@code "/a/b"});
     * no percent-decoding, use {@link CoapUri} for URIs.
     */
    public OptionSet.Builder uriPath(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        return uriPath(p.isEmpty() ? List.of() : List.of(p.split("/", -1)));
    }

    public OptionSet.Builder addUriPath(String segment) {
        return add(Option.ofString(OptionNumber.URI_PATH, segment));
    }

    public OptionSet.Builder uriQuery(List<String> args) {
        return setStrings(OptionNumber.URI_QUERY, args);
    }

    public OptionSet.Builder addUriQuery(String arg) {
        return add(Option.ofString(OptionNumber.URI_QUERY, arg));
    }

    public OptionSet.Builder locationPath(List<String> segments) {
        return setStrings(OptionNumber.LOCATION_PATH, segments);
    }

    public OptionSet.Builder locationQuery(List<String> args) {
        return setStrings(OptionNumber.LOCATION_QUERY, args);
    }

    public OptionSet.Builder contentFormat(int format) {
        return setUint(OptionNumber.CONTENT_FORMAT, format);
    }

    public OptionSet.Builder contentFormat(ContentFormat format) {
        return contentFormat(format.number());
    }

    public OptionSet.Builder accept(int format) {
        return setUint(OptionNumber.ACCEPT, format);
    }

    public OptionSet.Builder addEtag(byte[] etag) {
        return add(Option.of(OptionNumber.ETAG, etag));
    }

    public OptionSet.Builder addIfMatch(byte[] etag) {
        return add(Option.of(OptionNumber.IF_MATCH, etag));
    }

    public OptionSet.Builder ifNoneMatch(boolean present) {
        return present ? set(Option.wrap(OptionNumber.IF_NONE_MATCH.number(), new byte[0]))
                : remove(OptionNumber.IF_NONE_MATCH);
    }

    /** Observe (RFC 7641): 0 registers, 1 deregisters; notifications carry 0..2^24-1. */
    public OptionSet.Builder observe(int value) {
        return setUint(OptionNumber.OBSERVE, value);
    }

    public OptionSet.Builder maxAge(long seconds) {
        return setUint(OptionNumber.MAX_AGE, seconds);
    }

    public OptionSet.Builder block1(BlockOption block) {
        return set(Option.wrap(OptionNumber.BLOCK1.number(), block.encode()));
    }

    public OptionSet.Builder block2(BlockOption block) {
        return set(Option.wrap(OptionNumber.BLOCK2.number(), block.encode()));
    }

    public OptionSet.Builder size1(long size) {
        return setUint(OptionNumber.SIZE1, size);
    }

    public OptionSet.Builder size2(long size) {
        return setUint(OptionNumber.SIZE2, size);
    }

    public OptionSet.Builder proxyUri(String uri) {
        return setString(OptionNumber.PROXY_URI, uri);
    }

    public OptionSet.Builder proxyScheme(String scheme) {
        return setString(OptionNumber.PROXY_SCHEME, scheme);
    }

    /** No-Response bit mask (RFC 7967 §2.1). */
    public OptionSet.Builder noResponse(int mask) {
        return setUint(OptionNumber.NO_RESPONSE, mask);
    }

    public OptionSet.Builder echo(byte[] value) {
        return set(Option.of(OptionNumber.ECHO, value));
    }

    public OptionSet.Builder addRequestTag(byte[] tag) {
        return add(Option.of(OptionNumber.REQUEST_TAG, tag));
    }

    /** Hop-Limit 1..255, always one byte (RFC 8768 §3). */
    public OptionSet.Builder hopLimit(int hops) {
        if (hops < 1 || hops > 255) {
            throw new IllegalArgumentException("Hop-Limit must be 1..255, got " + hops);
        }
        return set(Option.wrap(OptionNumber.HOP_LIMIT.number(), new byte[] {(byte) hops}));
    }

    public OptionSet.Builder oscore(byte[] value) {
        return set(Option.of(OptionNumber.OSCORE, value));
    }
}
