package io.stagecoach.core.coap;

/**
 * The value of a Block1 or Block2 option (RFC 7959 §2.2): block number NUM (20 bits), the M
 * ("more") flag and the size exponent SZX, block size {@code 2^(SZX+4)} = 16..1024 bytes.
 *
 * <p>SZX 7 is reserved (RFC 7959 §2.2) and refused here; a received Block option with SZX 7 or a
 * value longer than 3 bytes is an invalid option (see {@link OptionSet#invalidOptions()}).
 *
 * <p><b>BERT.</b> Over reliable transports (TCP, TLS, WebSockets) SZX 7 is legal: a BERT option
 * (RFC 8323 §6) means SZX 6, 1024-byte blocks, with a payload of possibly several of them. Only
 * the factories that take {@code bertAllowed} accept it, so UDP code that calls {@link #of(int,
 * boolean, int)} and {@link #decode(byte[])} still refuses it; {@link
 * ReliableTransportOptions} reads the Block options of a message received over such a transport.
 */
public final class BlockOption {

    /** Largest block number a 3-byte value can hold. */
    public static final int MAX_NUM = (1 << 20) - 1;

    private final int num;
    private final boolean more;
    private final int szx;

    private BlockOption(int num, boolean more, int szx) {
        this.num = num;
        this.more = more;
        this.szx = szx;
    }

    /** Validates and creates a block value; SZX 7 is refused (UDP, RFC 7959 §2.2). */
    public static BlockOption of(int num, boolean more, int szx) {
        return of(num, more, szx, false);
    }

    /**
     * Validates and creates a block value; SZX 7 (BERT) is accepted when {@code bertAllowed}, as
     * over reliable transports (RFC 8323 §6).
     */
    public static BlockOption of(int num, boolean more, int szx, boolean bertAllowed) {
        if (num < 0 || num > MAX_NUM) {
            throw new IllegalArgumentException("block number must be 0.." + MAX_NUM + ", got " + num);
        }
        if (szx < 0 || szx > (bertAllowed ? 7 : 6)) {
            throw new IllegalArgumentException(bertAllowed ? "block SZX must be 0..7, got " + szx
                    : "block SZX must be 0..6 (7 is reserved), got " + szx);
        }
        return new BlockOption(num, more, szx);
    }

    /** The SZX for a block size of 16, 32, ..., 1024 bytes. */
    public static int szxOf(int size) {
        if (size < 16 || size > 1024 || Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException("block size must be a power of two in 16..1024, got " + size);
        }
        return Integer.numberOfTrailingZeros(size) - 4;
    }

    /** Decodes a 0..3 byte option value; {@code IllegalArgumentException} when longer or SZX 7. */
    public static BlockOption decode(byte[] value) {
        return decode(value, false);
    }

    /**
     * Decodes a 0..3 byte option value; {@code IllegalArgumentException} when longer, or SZX 7
     * unless {@code bertAllowed} (reliable transports, RFC 8323 §6).
     */
    public static BlockOption decode(byte[] value, boolean bertAllowed) {
        if (value.length > 3) {
            throw new IllegalArgumentException("block option value must be 0..3 bytes, got " + value.length);
        }
        int v = (int) Bytes.uint(value, 0, value.length);
        return of(v >>> 4, (v & 0x8) != 0, v & 0x7, bertAllowed);
    }

    /** Whether {@code value} decodes (length 0..3, SZX not 7). */
    static boolean isValid(byte[] b, int off, int len) {
        return len <= 3 && (len == 0 || (b[off + len - 1] & 0x7) != 7);
    }

    /** Whether this is a BERT option, SZX 7 (RFC 8323 §6). */
    public boolean isBert() {
        return szx == 7;
    }

    /** The shortest uint encoding (0 to 3 bytes, RFC 7959 §2.2). */
    public byte[] encode() {
        return Bytes.uint((long) num << 4 | (more ? 0x8 : 0) | szx);
    }

    public int num() {
        return num;
    }

    public boolean more() {
        return more;
    }

    public int szx() {
        return szx;
    }

    /**
     * Block size in bytes: {@code 1 << (szx + 4)}; 1024 for BERT, whose block numbers count
     * 1024-byte blocks although one BERT payload may hold several (RFC 8323 §6).
     */
    public int size() {
        return szx == 7 ? 1024 : 1 << (szx + 4);
    }

    /** Byte offset of this block in the whole body: {@code num * size}. */
    public long offset() {
        return (long) num * size();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BlockOption)) {
            return false;
        }
        BlockOption b = (BlockOption) o;
        return b.num == num && b.more == more && b.szx == szx;
    }

    @Override
    public int hashCode() {
        return (num * 31 + szx) * 2 + (more ? 1 : 0);
    }

    /** E.g. {@code "17/M/1024"}: number, more flag, size (aiocoap style); {@code "3/-/BERT"}. */
    @Override
    public String toString() {
        return num + "/" + (more ? "M" : "-") + "/" + (szx == 7 ? "BERT" : Integer.toString(size()));
    }
}
