package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.network.internal.PeerHashing;
import io.stagecoach.core.network.internal.Source;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import java.net.InetSocketAddress;
import java.util.HexFormat;

/**
 * Names one server-side block-wise transfer: the peer, the direction, the method and the target
 * (Uri-Path, Uri-Query, Accept), plus Request-Tag values for uploads (RFC 9175 §3).
 *
 * <p>The token is deliberately not part of the key: RFC 7959 lets a client change the token between
 * the requests of one transfer (§2.4, §2.5), and libcoap and aiocoap do so. Two concurrent transfers
 * of the same peer to the same resource therefore share state; Request-Tag separates uploads, and
 * an ETag tells a client when a download changed under it.
 */
record TransferKey(InetSocketAddress peer, boolean upload, Code method, String target, String tags)
        implements Comparable<TransferKey> {

    /** The source this transfer's state is counted against. */
    Source source() {
        return Source.of(peer);
    }

    /** Keyed on the peer and the attacker-chosen target, so that colliding keys cannot be made. */
    @Override
    public int hashCode() {
        return PeerHashing.hash((long) PeerHashing.hash(peer) << 32 ^ (target.hashCode() * 31L + tags.hashCode()) ^ (upload ? 1 : 0))
                + method.value();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransferKey k && k.upload == upload && k.method.equals(method) && k.peer.equals(peer)
                && k.target.equals(target) && k.tags.equals(tags);
    }

    @Override
    public int compareTo(TransferKey o) {
        int c = PeerHashing.compare(peer, o.peer);
        if (c == 0) {
            c = Boolean.compare(upload, o.upload);
        }
        if (c == 0) {
            c = Integer.compare(method.value(), o.method.value());
        }
        if (c == 0) {
            c = target.compareTo(o.target);
        }
        return c != 0 ? c : tags.compareTo(o.tags);
    }

    static TransferKey upload(InetSocketAddress peer, Request request) {
        return of(peer, true, request);
    }

    static TransferKey download(InetSocketAddress peer, Request request) {
        return of(peer, false, request);
    }

    private static TransferKey of(InetSocketAddress peer, boolean upload, Request request) {
        OptionSet o = request.options();
        StringBuilder target = new StringBuilder(o.uriPathString());
        for (String q : o.uriQuery()) {
            target.append(target.indexOf("?") < 0 ? '?' : '&').append(q);
        }
        if (o.accept() >= 0) {
            target.append(" accept=").append(o.accept());
        }
        StringBuilder tags = new StringBuilder();
        if (upload) {
            for (byte[] tag : o.requestTags()) {
                tags.append(HexFormat.of().formatHex(tag)).append(',');
            }
        }
        return new TransferKey(peer, upload, request.code(), target.toString(), tags.toString());
    }
}
