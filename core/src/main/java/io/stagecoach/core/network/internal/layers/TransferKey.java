package io.stagecoach.core.network.internal.layers;

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
record TransferKey(InetSocketAddress peer, boolean upload, Code method, String target, String tags) {

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
