package io.stagecoach.elements.dtls;

import java.security.SecureRandom;

/**
 * Makes the connection IDs a server issues (RFC 9146): {@code length} bytes, random, and with a
 * node ID in 1..255 the first byte is that node ID so that a load balancer in front of several
 * nodes can route a record by its first CID byte. Uniqueness among live sessions is the caller's
 * check ({@link #next()} may, rarely, repeat).
 */
final class CidGenerator {

    private final int length;
    private final int nodeId;
    private final SecureRandom random;

    /**
     * @param length 0 (no connection IDs) to 32 bytes
     * @param nodeId 0 for none, else 1..255 (needs {@code length >= 2}: one byte of node ID leaves
     *               too few random IDs otherwise)
     */
    public CidGenerator(int length, int nodeId, SecureRandom random) {
        if (length < 0 || length > 32) {
            throw new IllegalArgumentException("CID length must be in [0, 32]: " + length);
        }
        if (nodeId < 0 || nodeId > 255) {
            throw new IllegalArgumentException("node ID must be in [0, 255]: " + nodeId);
        }
        if (nodeId != 0 && length < 2) {
            throw new IllegalArgumentException("a node ID needs a CID length of at least 2");
        }
        this.length = length;
        this.nodeId = nodeId;
        this.random = random;
    }

    public int length() {
        return length;
    }

    /** Whether this generator issues connection IDs at all. */
    public boolean enabled() {
        return length > 0;
    }

    /** A fresh connection ID; {@code null} when disabled. */
    public byte[] next() {
        if (length == 0) {
            return null;
        }
        byte[] cid = new byte[length];
        random.nextBytes(cid);
        if (nodeId != 0) {
            cid[0] = (byte) nodeId;
        }
        return cid;
    }
}
