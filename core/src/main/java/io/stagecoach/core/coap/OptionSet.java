package io.stagecoach.core.coap;

import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

// Over 500 lines: one typed accessor pair per option of RFC 7252, 7641, 7959 and 9175, and the
// two storage forms behind the positional access; the encoding itself is in OptionCodec.
/**
 * The options of a message (RFC 7252 §5.4), immutable, in wire order: sorted by number, repeated
 * options in the order they were added or received (§5.4.5).
 *
 * <p>Storage is compact for the codec: all values share one byte array and an {@code int[]}
 * index holds number, offset and length per option. A set of one short option (number and
 * length below 256, offset below 65,536: e.g. the Uri-Path of {@code GET /sensors}, or a
 * Content-Format) keeps that triple in an {@code int} field instead, which fits in the object's
 * alignment padding: no index array (32 B per message). The two forms are invisible to callers
 * and compare equal. Typed getters decode on each call. A set made by {@link #wrapWire} reads
 * its values from the received datagram itself.
 *
 * <p><b>Invalid received options.</b> A decoder builds sets with {@link #fromWire} without
 * validation. A value outside its option's defined length, a Block option with the reserved SZX 7,
 * and every supernumerary occurrence of a non-repeatable option are <em>invalid</em>: they are
 * kept (so the message re-encodes byte for byte) and listed by {@link #invalidOptions()}, and the
 * typed getters treat them as absent, as RFC 7252 §5.4.3 and §5.4.5 say to treat them like
 * unrecognized options. The endpoint answers a CON request carrying an invalid critical option with
 * 4.02 Bad Option (§5.4.1). {@link #get(OptionNumber)} and iteration return all options, valid or not.
 *
 * <p>Absent values: int/long getters return {@code -1}, object getters {@code null}, list getters
 * an empty list.
 *
 * <p>Length: about 590 lines because it holds one typed getter per option RFC 7252,
 * 7641, 7959, 7967, 8613, 8768 and 9175 define, next to the positional access the codec and the
 * allocation-free request checks use, over two storage forms that must stay private to keep the
 * set immutable; splitting the getters off would only move them behind a second class every
 * caller must know.
 */
public final class OptionSet implements Iterable<Option> {

    private static final byte[] NO_BYTES = new byte[0];

    /** The set without options. */
    public static final OptionSet EMPTY = new OptionSet(NO_BYTES, new int[0]);

    /** Max-Age when the option is absent (RFC 7252 §5.10.5). */
    public static final long DEFAULT_MAX_AGE = 60;

    private final byte[] data;
    // per option i: index[3i] number, index[3i+1] offset in data, index[3i+2] length; null for
    // the one-option form, which keeps the triple in `one`: number << 24 | length << 16 | offset
    private final int[] index;
    private final int one;

    private OptionSet(byte[] data, int[] index) {
        this.data = data;
        this.index = index;
        this.one = 0;
    }

    private OptionSet(byte[] data, int number, int offset, int length) {
        this.data = data;
        this.index = null;
        this.one = number << 24 | length << 16 | offset;
    }

    /** One option, in the packed form when its triple fits (see the class comment). */
    private static OptionSet single(byte[] data, int number, int offset, int length) {
        if (number < 256 && length < 256 && offset < 65_536) {
            return new OptionSet(data, number, offset, length);
        }
        return new OptionSet(data, new int[] {number, offset, length});
    }

    /** A new, empty builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding a copy of these options. */
    public Builder newBuilder() {
        Builder b = new Builder();
        for (int i = 0; i < size(); i++) {
            b.options.add(option(i));
        }
        return b;
    }

    /**
     * For decoders: copies {@code count} options whose values lie in {@code src}, described by
     * {@code wireIndex} as (number, offset, length) triples, into a new set without validating
     * the values (see the class comment).
     *
     * @throws IllegalArgumentException if the numbers are not ascending or a span is out of range
     */
    public static OptionSet fromWire(byte[] src, int[] wireIndex, int count) {
        if (count == 0) {
            return EMPTY;
        }
        int total = checkWireIndex(src, wireIndex, count);
        byte[] data = total == 0 ? NO_BYTES : new byte[total]; // e.g. Content-Format 0: no 16-B empty array
        if (count == 1) {
            System.arraycopy(src, wireIndex[1], data, 0, total);
            return single(data, wireIndex[0], 0, total);
        }
        int[] index = new int[3 * count];
        int pos = 0;
        for (int i = 0; i < count; i++) {
            int len = wireIndex[3 * i + 2];
            System.arraycopy(src, wireIndex[3 * i + 1], data, pos, len);
            index[3 * i] = wireIndex[3 * i];
            index[3 * i + 1] = pos;
            index[3 * i + 2] = len;
            pos += len;
        }
        return new OptionSet(data, index);
    }

    /**
     * For decoders that own the datagram: as {@link #fromWire} with all of {@code wireIndex}, but
     * the set keeps both arrays and reads the values from {@code src} in place. This saves the
     * copies of the values and of the index (~64 B per message) and takes the arrays over: nobody
     * may modify either of them afterwards, or the set would change under its holders.
     *
     * @throws IllegalArgumentException if the index is not triples, the numbers are not ascending
     *     or a span is out of range
     */
    public static OptionSet wrapWire(byte[] src, int[] wireIndex) {
        if (wireIndex.length % 3 != 0) {
            throw new IllegalArgumentException("option index of " + wireIndex.length
                    + " ints is not (number, offset, length) triples");
        }
        int count = wireIndex.length / 3;
        if (count == 0) {
            return EMPTY;
        }
        checkWireIndex(src, wireIndex, count);
        return count == 1 ? single(src, wireIndex[0], wireIndex[1], wireIndex[2]) : new OptionSet(src, wireIndex);
    }

    /**
     * For decoders that own the datagram: a set of the one option {@code number} whose value is
     * the {@code length} bytes of {@code src} from {@code offset}, read in place as by
     * {@link #wrapWire(byte[], int[])}, without the caller building an index (a received request
     * most often carries one option, e.g. a single Uri-Path).
     *
     * @throws IllegalArgumentException if the number or span is out of range
     */
    public static OptionSet wrapWire(byte[] src, int number, int offset, int length) {
        if (number < 0 || number > OptionNumber.MAX_NUMBER || offset < 0 || length < 0 || offset + length > src.length
                || offset + length < 0) {
            throw new IllegalArgumentException("option " + number + " at " + offset + "+" + length
                    + " is out of range");
        }
        return single(src, number, offset, length);
    }

    /** Checks order and spans of the first {@code count} entries; returns their total value length. */
    private static int checkWireIndex(byte[] src, int[] wireIndex, int count) {
        int total = 0;
        int last = 0;
        for (int i = 0; i < count; i++) {
            int n = wireIndex[3 * i];
            int off = wireIndex[3 * i + 1];
            int len = wireIndex[3 * i + 2];
            if (n < last || n > OptionNumber.MAX_NUMBER || off < 0 || len < 0 || off + len > src.length) {
                throw new IllegalArgumentException("option index entry " + i + " is out of order or range");
            }
            last = n;
            total += len;
        }
        return total;
    }

    // ---- positional access, for the codec ----

    /** Number of option instances. */
    public int size() {
        return index == null ? 1 : index.length / 3;
    }

    public boolean isEmpty() {
        return index != null && index.length == 0;
    }

    /** Number of the {@code i}-th option in wire order. */
    public int number(int i) {
        return index == null ? packed(i) >>> 24 : index[3 * i];
    }

    /** Value length of the {@code i}-th option. */
    public int valueLength(int i) {
        return index == null ? (packed(i) >>> 16) & 0xFF : index[3 * i + 2];
    }

    /** Offset of the {@code i}-th value in {@code data}. */
    private int offset(int i) {
        return index == null ? packed(i) & 0xFFFF : index[3 * i + 1];
    }

    /** The one-option triple; {@code i} must be 0, as an index array would check it. */
    private int packed(int i) {
        if (i != 0) {
            throw new IndexOutOfBoundsException("option " + i + " of a set of 1");
        }
        return one;
    }

    /** Copies the {@code i}-th value into {@code dst} at {@code off}. */
    public void copyValue(int i, byte[] dst, int off) {
        System.arraycopy(data, offset(i), dst, off, valueLength(i));
    }

    /** Whether the {@code i}-th value equals {@code value}; compares in place, no copy. */
    public boolean valueEquals(int i, byte[] value) {
        int off = offset(i);
        return Arrays.equals(data, off, off + valueLength(i), value, 0, value.length);
    }

    /** {@link Arrays#hashCode(byte[])} of the {@code i}-th value, computed in place, no copy. */
    public int valueHashCode(int i) {
        int h = 1;
        for (int j = offset(i), end = j + valueLength(i); j < end; j++) {
            h = 31 * h + data[j];
        }
        return h;
    }

    /** The {@code i}-th option. */
    public Option option(int i) {
        int off = offset(i);
        return Option.wrap(number(i), Arrays.copyOfRange(data, off, off + valueLength(i)));
    }

    /** All options in wire order. */
    @Override
    public Iterator<Option> iterator() {
        return asList().iterator();
    }

    /** All options in wire order, as an unmodifiable list. */
    public List<Option> asList() {
        return new AbstractList<>() {
            @Override
            public Option get(int i) {
                return option(i);
            }

            @Override
            public int size() {
                return OptionSet.this.size();
            }
        };
    }

    // ---- generic lookup ----

    public boolean has(OptionNumber number) {
        return has(number.number());
    }

    /** Whether an option with this number is present (valid or not). */
    public boolean has(int number) {
        for (int i = 0, n = size(); i < n; i++) {
            if (number(i) == number) {
                return true;
            }
        }
        return false;
    }

    /** Every occurrence of {@code number}, valid or not, in wire order. */
    public List<Option> get(OptionNumber number) {
        return get(number.number());
    }

    /** Every occurrence of {@code number}, valid or not, in wire order. */
    public List<Option> get(int number) {
        List<Option> out = new ArrayList<>(2);
        for (int i = 0; i < size(); i++) {
            if (number(i) == number) {
                out.add(option(i));
            }
        }
        return out;
    }

    /** The options that must be treated like unrecognized ones (see the class comment). */
    public List<Option> invalidOptions() {
        List<Option> out = null;
        for (int i = 0; i < size(); i++) {
            if (!isValid(i)) {
                if (out == null) {
                    out = new ArrayList<>(2);
                }
                out.add(option(i));
            }
        }
        return out == null ? Collections.emptyList() : out;
    }

    /** Whether the {@code i}-th option is valid (see the class comment). */
    public boolean isValid(int i) {
        int n = number(i);
        if (i > 0 && number(i - 1) == n) {
            OptionNumber def = OptionNumber.known(n);
            if (def != null && !def.isRepeatable()) {
                return false;
            }
        }
        return isValidValue(n, data, offset(i), valueLength(i));
    }

    /**
     * Whether the {@code i}-th value has its defined length (and, for Block1/Block2, no reserved
     * SZX 7), regardless of repetition: {@code option(i).isValid()} without building the option.
     */
    public boolean isValidValue(int i) {
        return isValidValue(number(i), data, offset(i), valueLength(i));
    }

    static boolean isValidValue(int number, byte[] b, int off, int len) {
        OptionNumber def = OptionNumber.known(number);
        if (def == null) {
            return len <= OptionNumber.UNKNOWN_MAX_LENGTH; // as valueOf's opaque definition of it
        }
        if (!def.acceptsLength(len)) {
            return false;
        }
        if (number == OptionNumber.BLOCK1.number() || number == OptionNumber.BLOCK2.number()) {
            return BlockOption.isValid(b, off, len);
        }
        return true;
    }

    // ---- typed getters; invalid occurrences count as absent ----

    /** Position of the first valid occurrence of a non-repeatable option, or -1. */
    private int single(OptionNumber n) {
        for (int i = 0, size = size(); i < size; i++) {
            if (number(i) == n.number()) {
                return isValid(i) ? i : -1;
            }
        }
        return -1;
    }

    private long uint(OptionNumber n) {
        int i = single(n);
        return i < 0 ? -1 : Bytes.uint(data, offset(i), valueLength(i));
    }

    private String string(OptionNumber n) {
        int i = single(n);
        return i < 0 ? null : new String(data, offset(i), valueLength(i), StandardCharsets.UTF_8);
    }

    private byte[] opaque(OptionNumber n) {
        int i = single(n);
        return i < 0 ? null : Arrays.copyOfRange(data, offset(i), offset(i) + valueLength(i));
    }

    private List<String> strings(OptionNumber n) {
        List<String> out = null;
        for (int i = 0; i < size(); i++) {
            if (number(i) == n.number() && isValid(i)) {
                if (out == null) {
                    out = new ArrayList<>(4);
                }
                out.add(new String(data, offset(i), valueLength(i), StandardCharsets.UTF_8));
            }
        }
        return out == null ? Collections.emptyList() : Collections.unmodifiableList(out);
    }

    private List<byte[]> opaques(OptionNumber n) {
        List<byte[]> out = new ArrayList<>(2);
        for (int i = 0; i < size(); i++) {
            if (number(i) == n.number() && isValid(i)) {
                out.add(Arrays.copyOfRange(data, offset(i), offset(i) + valueLength(i)));
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** Uri-Host (3), or {@code null}. */
    public String uriHost() {
        return string(OptionNumber.URI_HOST);
    }

    /** Uri-Port (7), or -1. */
    public int uriPort() {
        return (int) uint(OptionNumber.URI_PORT);
    }

    /** Uri-Path (11) segments, not percent-encoded. */
    public List<String> uriPath() {
        return strings(OptionNumber.URI_PATH);
    }

    /** Uri-Path joined with '/', without a leading slash, e.g. {@code "sensors/temp"}. */
    public String uriPathString() {
        return String.join("/", uriPath());
    }

    /** Uri-Query (15) arguments, e.g. {@code ["a=1", "b"]}. */
    public List<String> uriQuery() {
        return strings(OptionNumber.URI_QUERY);
    }

    public List<String> locationPath() {
        return strings(OptionNumber.LOCATION_PATH);
    }

    public List<String> locationQuery() {
        return strings(OptionNumber.LOCATION_QUERY);
    }

    /** Content-Format (12) number, or -1; see {@link ContentFormat#valueOf(int)}. */
    public int contentFormat() {
        return (int) uint(OptionNumber.CONTENT_FORMAT);
    }

    /** Accept (17), or -1. */
    public int accept() {
        return (int) uint(OptionNumber.ACCEPT);
    }

    /** ETag (4) values in order. */
    public List<byte[]> etags() {
        return opaques(OptionNumber.ETAG);
    }

    /** If-Match (1) values in order; an empty value matches any existing representation. */
    public List<byte[]> ifMatch() {
        return opaques(OptionNumber.IF_MATCH);
    }

    /** Whether If-None-Match (5) is present. */
    public boolean ifNoneMatch() {
        return single(OptionNumber.IF_NONE_MATCH) >= 0;
    }

    /** Observe (6) sequence number or registration (0) / deregistration (1), or -1 (RFC 7641). */
    public int observe() {
        return (int) uint(OptionNumber.OBSERVE);
    }

    /** Max-Age (14) as carried, or -1 when absent; see {@link #effectiveMaxAge()}. */
    public long maxAge() {
        return uint(OptionNumber.MAX_AGE);
    }

    /** Max-Age in seconds, 60 when absent (RFC 7252 §5.10.5). */
    public long effectiveMaxAge() {
        long v = maxAge();
        return v < 0 ? DEFAULT_MAX_AGE : v;
    }

    public BlockOption block1() {
        return block(OptionNumber.BLOCK1);
    }

    public BlockOption block2() {
        return block(OptionNumber.BLOCK2);
    }

    private BlockOption block(OptionNumber n) {
        long v = uint(n);
        return v < 0 ? null : BlockOption.of((int) (v >>> 4), (v & 8) != 0, (int) (v & 7));
    }

    /** Size1 (60), or -1. */
    public long size1() {
        return uint(OptionNumber.SIZE1);
    }

    /** Size2 (28), or -1. */
    public long size2() {
        return uint(OptionNumber.SIZE2);
    }

    public String proxyUri() {
        return string(OptionNumber.PROXY_URI);
    }

    public String proxyScheme() {
        return string(OptionNumber.PROXY_SCHEME);
    }

    /** No-Response (258) bit mask (RFC 7967), or -1. */
    public int noResponse() {
        return (int) uint(OptionNumber.NO_RESPONSE);
    }

    /** Echo (252, RFC 9175), or {@code null}. */
    public byte[] echo() {
        return opaque(OptionNumber.ECHO);
    }

    /** Request-Tag (292, RFC 9175) values in order. */
    public List<byte[]> requestTags() {
        return opaques(OptionNumber.REQUEST_TAG);
    }

    /** Hop-Limit (16, RFC 8768), or -1. */
    public int hopLimit() {
        return (int) uint(OptionNumber.HOP_LIMIT);
    }

    /** OSCORE (9, RFC 8613) as opaque bytes, or {@code null}. */
    public byte[] oscore() {
        return opaque(OptionNumber.OSCORE);
    }

    // ---- value semantics ----

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof OptionSet) || ((OptionSet) o).size() != size()) {
            return false;
        }
        OptionSet other = (OptionSet) o;
        for (int i = 0, n = size(); i < n; i++) {
            int off = offset(i);
            int otherOff = other.offset(i);
            if (number(i) != other.number(i) || !Arrays.equals(data, off, off + valueLength(i),
                    other.data, otherOff, otherOff + other.valueLength(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (int i = 0, n = size(); i < n; i++) {
            h = h * 31 + number(i);
            for (int j = offset(i), end = j + valueLength(i); j < end; j++) {
                h = h * 31 + data[j];
            }
        }
        return h;
    }

    @Override
    public String toString() {
        return asList().toString();
    }

    /** Packs options already sorted by number. */
    static OptionSet pack(List<Option> sorted) {
        if (sorted.isEmpty()) {
            return EMPTY;
        }
        int total = 0;
        for (Option o : sorted) {
            total += o.length();
        }
        byte[] data = total == 0 ? NO_BYTES : new byte[total];
        if (sorted.size() == 1) {
            System.arraycopy(sorted.get(0).value(), 0, data, 0, total);
            return single(data, sorted.get(0).number(), 0, total);
        }
        int[] index = new int[3 * sorted.size()];
        int pos = 0;
        for (int i = 0; i < sorted.size(); i++) {
            Option o = sorted.get(i);
            byte[] v = o.value();
            System.arraycopy(v, 0, data, pos, v.length);
            index[3 * i] = o.number();
            index[3 * i + 1] = pos;
            index[3 * i + 2] = v.length;
            pos += v.length;
        }
        return new OptionSet(data, index);
    }

    /**
     * Builds an {@link OptionSet}, validating every option when it is set (the setters are
     * declared in the package-private base class to keep this file short).
     */
    public static final class Builder extends OptionSetBuilder {
        Builder() {
        }
    }
}
