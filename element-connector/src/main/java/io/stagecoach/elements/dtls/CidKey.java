package io.stagecoach.elements.dtls;

import java.util.Arrays;
import java.util.HexFormat;

/** A connection ID as a map key: compares by content. */
final class CidKey {

    private final byte[] bytes;
    private final int hash;

    private CidKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /** Copies {@code length} bytes of {@code buf} at {@code off}. */
    public static CidKey of(byte[] buf, int off, int length) {
        return new CidKey(Arrays.copyOfRange(buf, off, off + length));
    }

    public static CidKey of(byte[] cid) {
        return new CidKey(cid.clone());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CidKey k && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }
}
