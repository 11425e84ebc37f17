package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.stack.LayerContext;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Client side of RFC 7959: transparent uploads (Block1) and downloads (Block2) on ONE
 * {@link Exchange}. The listener sees one response with the whole body.
 *
 * <p>Every block is its own CON (or NON) message on the same exchange with the same token: the
 * token layer registers (peer, token) once, and the next block is built with MID -1 so that the
 * outbox assigns a fresh MID (the previous block's MID is unregistered first, so that a late
 * duplicate of its ACK cannot be taken for the answer to the new block). Reusing the token keeps
 * one store entry per transfer; RFC 7959 §2.4 allows it.
 *
 * <ul>
 *   <li>Upload: a payload larger than the maximum message size, or any payload of a request the
 *       application gave a Block1 option (its SZX is the block size: early negotiation, per
 *       request), goes out as Block1 blocks; block 0 carries Size1. A 2.31 with a smaller SZX
 *       makes the client continue at the same byte offset in the smaller size (§2.5).</li>
 *   <li>4.13 carrying Block1 with a smaller SZX, or Size1 smaller than the block just sent, starts
 *       the upload over from block 0 with the smaller size (at most twice); otherwise the 4.13
 *       reaches the application.</li>
 *   <li>Download: a response with Block2 NUM=0 M=1 is followed by requests for NUM=1, 2, ... in
 *       the SZX the server chose (the same method and options, no payload, no Observe) until
 *       M=0; an application-set Block2 on the request asks for a block size (early negotiation).
 *       The ETag must not change between blocks and the body must stay within the maximum body
 *       size, else the exchange fails with {@link ExchangeFailedException}. An error response to a
 *       follow-up ends the transfer and reaches the application as it is.</li>
 *   <li>Requests the application already made block-wise by hand (Block2 NUM &gt; 0) pass untouched.</li>
 *   <li>Observe hook: a notification with Block2 M=1 is passed up as it is; the observe layer
 *       fetches its other blocks on a follow-up exchange marked with {@link #CONTINUE_FROM}, whose
 *       transfer this class runs from block 1 on.</li>
 * </ul>
 */
final class BlockwiseClient {

    /** The transfer state of one client exchange. */
    static final class Transfer {
        byte[] upload;
        int upSzx;
        long upOffset;
        boolean uploading;
        int restarts;
        ByteArrayOutputStream download;
        byte[] etag;
    }

    static final Exchange.Slot<Transfer> TRANSFER = new Exchange.Slot<>("blockwise-client", Transfer.class);

    /**
     * Set by {@link ObserveBlockFetcher} on a follow-up exchange: the first block of a notification
     * that the exchange's transfer continues from (block 1 on).
     */
    static final Exchange.Slot<Response> CONTINUE_FROM = new Exchange.Slot<>("blockwise-continue-from", Response.class);

    private static final int MAX_RESTARTS = 2;

    private final BlockwiseSettings settings;
    private final ExchangeStore store;
    private final BlockwiseLayer layer;
    private final AtomicInteger active = new AtomicInteger();

    BlockwiseClient(BlockwiseSettings settings, ExchangeStore store, BlockwiseLayer layer) {
        this.settings = settings;
        this.store = store;
        this.layer = layer;
    }

    /** The Block2 asking for the block at byte {@code offset} in the size of {@code like} (BERT: 1024-byte units). */
    private static BlockOption blockAt(long offset, BlockOption like) {
        int shift = like.isBert() ? 10 : like.szx() + 4;
        return BlockOption.of((int) (offset >> shift), false, like.szx(), true);
    }

    /** Client transfers in progress. */
    int active() {
        return active.get();
    }

    void send(LayerContext ctx, Exchange exchange, Request request) {
        Response first = exchange.get(CONTINUE_FROM);
        if (first != null) {
            exchange.set(CONTINUE_FROM, null);
            continueDownload(ctx, exchange, first);
            return;
        }
        BlockOption early = request.options().block1();
        int length = request.payloadLength();
        if (early != null && early.num() == 0 && length > 0) {
            startUpload(ctx, exchange, early.szx());
        } else if (early == null && length > settings.maxMessageSize()) {
            // BERT (RFC 8323 §6) when the peer's CSM allows it: k x 1024 bytes per message
            startUpload(ctx, exchange, layer.bert(exchange) > 0 ? 7 : settings.szx());
        } else {
            ctx.sendRequest(exchange, request);
        }
    }

    void receive(LayerContext ctx, Exchange exchange, Response response) {
        Transfer t = exchange.get(TRANSFER);
        if (t != null && t.uploading && onUploadResponse(ctx, exchange, t, response)) {
            return;
        }
        if (t == null && response.code() == Code.REQUEST_ENTITY_TOO_LARGE && retryAsBlocks(ctx, exchange, response)) {
            return;
        }
        BlockOption b2 = BlockwiseLayer.block2(response.options(), layer.bert(exchange));
        if (t == null || t.download == null) {
            boolean starts = b2 != null && b2.num() == 0 && b2.more() && response.code().isSuccess()
                    && !response.options().has(OptionNumber.OBSERVE);
            if (!starts) {
                ctx.receiveResponse(exchange, t == null ? response : strip(response));
                return;
            }
            t = transfer(exchange);
            long size2 = response.options().size2();
            if (size2 > settings.maxBodySize()) {
                tooLarge(exchange, size2);
                return;
            }
            t.download = new ByteArrayOutputStream();
            t.etag = etag(response);
        } else if (b2 == null || !response.code().isSuccess()) {
            ctx.receiveResponse(exchange, strip(response)); // the transfer ends with this answer
            return;
        } else if (b2.offset() != t.download.size() || !Arrays.equals(t.etag, etag(response))) {
            exchange.fail(new ExchangeFailedException(b2.offset() != t.download.size()
                    ? "block " + b2 + " does not continue the " + t.download.size() + " bytes received"
                    : "the representation changed during the block-wise transfer (ETag)"));
            return;
        }
        if ((long) t.download.size() + response.payloadLength() > settings.maxBodySize()) {
            tooLarge(exchange, (long) t.download.size() + response.payloadLength());
            return;
        }
        t.download.write(response.payload(), 0, response.payloadLength());
        if (!b2.more()) {
            Response whole = strip(response.newBuilder().payload(t.download.toByteArray()).build());
            t.download = null;
            ctx.receiveResponse(exchange, whole);
            return;
        }
        Request.Builder next = exchange.request().newBuilder().payload(new byte[0]).type(exchange.request().type())
                .mid(-1).token(exchange.currentRequest().token());
        next.options().remove(OptionNumber.BLOCK1).remove(OptionNumber.SIZE1).remove(OptionNumber.OBSERVE)
                .block2(blockAt(t.download.size(), b2));
        sendNext(ctx, exchange, next.build());
    }

    /** Starts a download whose block 0 arrived elsewhere (an observe notification, RFC 7959 §2.6). */
    private void continueDownload(LayerContext ctx, Exchange exchange, Response first) {
        Transfer t = transfer(exchange);
        BlockOption b2 = BlockwiseLayer.block2(first.options(), layer.bert(exchange));
        long size2 = first.options().size2();
        if (size2 > settings.maxBodySize() || first.payloadLength() > settings.maxBodySize()) {
            tooLarge(exchange, Math.max(size2, first.payloadLength()));
            return;
        }
        t.download = new ByteArrayOutputStream();
        t.etag = etag(first);
        t.download.write(first.payload(), 0, first.payloadLength());
        Request.Builder next = exchange.request().newBuilder().mid(-1);
        next.options().remove(OptionNumber.OBSERVE)
                .block2(blockAt(t.download.size(), b2));
        sendNext(ctx, exchange, next.build());
    }

    // ---------------------------------------------------------------- upload

    private void startUpload(LayerContext ctx, Exchange exchange, int szx) {
        Transfer t = transfer(exchange);
        t.upload = exchange.request().payload();
        t.upSzx = szx;
        t.upOffset = 0;
        t.uploading = true;
        sendBlock(ctx, exchange, t);
    }

    private void sendBlock(LayerContext ctx, Exchange exchange, Transfer t) {
        boolean bert = t.upSzx == 7;
        int size = bert ? 1024 * Math.max(1, layer.bert(exchange)) : 1 << (t.upSzx + 4);
        int from = (int) t.upOffset;
        int to = Math.min(t.upload.length, from + size);
        Request.Builder b = exchange.request().newBuilder().payload(t.upload, from, to - from).mid(-1)
                .token(exchange.currentRequest().token());
        b.options().block1(BlockOption.of(from >> (bert ? 10 : t.upSzx + 4), to < t.upload.length, t.upSzx, true));
        if (from == 0) {
            b.options().size1(t.upload.length);
        } else {
            b.options().remove(OptionNumber.SIZE1);
        }
        sendNext(ctx, exchange, b.build());
    }

    /** @return whether the response was consumed by the upload */
    private boolean onUploadResponse(LayerContext ctx, Exchange exchange, Transfer t, Response response) {
        int bert = layer.bert(exchange);
        BlockOption sent = BlockwiseLayer.block1(exchange.currentRequest().options(), bert);
        BlockOption echo = BlockwiseLayer.block1(response.options(), bert);
        if (response.code() == Code.CONTINUE) {
            if (echo == null || sent == null || echo.num() != sent.num() || !sent.more()) {
                exchange.fail(new ExchangeFailedException("2.31 Continue with Block1 " + echo + " does not answer block " + sent));
                return true;
            }
            t.upOffset = sent.offset() + exchange.currentRequest().payloadLength();
            if (echo.szx() < t.upSzx) {
                t.upSzx = echo.szx(); // the server asks for smaller blocks from here on (§2.5)
            }
            sendBlock(ctx, exchange, t);
            return true;
        }
        if (response.code() == Code.REQUEST_ENTITY_TOO_LARGE) {
            int szx = smallerSzx(response, t.upSzx);
            if (szx >= 0 && t.restarts < MAX_RESTARTS) {
                t.restarts++;
                t.upSzx = szx;
                t.upOffset = 0;
                sendBlock(ctx, exchange, t);
                return true;
            }
        }
        t.uploading = false; // the final response; it may start a Block2 download (§2.6)
        return false;
    }

    /** A plain request drew 4.13 with a hint for blocks that fit: upload it block-wise instead. */
    private boolean retryAsBlocks(LayerContext ctx, Exchange exchange, Response response) {
        int length = exchange.request().payloadLength();
        int szx = smallerSzx(response, BlockwiseSettings.szxAtMost(length) + 1);
        if (length == 0 || szx < 0 || exchange.currentRequest().options().has(OptionNumber.BLOCK1)) {
            return false;
        }
        Transfer t = transfer(exchange);
        t.restarts = 1;
        t.upload = exchange.request().payload();
        t.upSzx = szx;
        t.uploading = true;
        sendBlock(ctx, exchange, t);
        return true;
    }

    /** The SZX a 4.13 asks for when smaller than {@code current}: from its Block1, else from Size1; or -1. */
    private static int smallerSzx(Response response, int current) {
        BlockOption b1 = response.options().block1();
        int szx = b1 != null ? b1.szx() : -1;
        long size1 = response.options().size1();
        if (szx < 0 && size1 >= 16 && size1 < (1L << (current + 4))) {
            szx = BlockwiseSettings.szxAtMost(size1);
        }
        return szx >= 0 && szx < current ? szx : -1;
    }

    // ---------------------------------------------------------------- common

    private void sendNext(LayerContext ctx, Exchange exchange, Request next) {
        int previous = exchange.currentRequest().mid();
        if (previous >= 0) {
            store.removeMid(exchange, previous);
        }
        exchange.setCurrentRequest(next);
        ctx.sendRequest(exchange, next);
    }

    private Transfer transfer(Exchange exchange) {
        Transfer t = exchange.get(TRANSFER);
        if (t == null) {
            t = new Transfer();
            exchange.set(TRANSFER, t);
            active.incrementAndGet();
            exchange.whenComplete(active::decrementAndGet);
        }
        return t;
    }

    private void tooLarge(Exchange exchange, long size) {
        exchange.fail(new ExchangeFailedException("block-wise response of " + size + " bytes exceeds the maximum body size "
                + settings.maxBodySize()));
    }

    private static byte[] etag(Response response) {
        List<byte[]> etags = response.options().etags();
        return etags.isEmpty() ? null : etags.get(0);
    }

    /**
     * The response as the application sees it: without the transfer's Block options, and for a
     * success without Size1/Size2 (an error keeps them: Size1 in a 4.13 is the server's limit).
     */
    private static Response strip(Response response) {
        Response.Builder b = response.newBuilder();
        b.options().remove(OptionNumber.BLOCK1).remove(OptionNumber.BLOCK2);
        if (response.code().isSuccess()) {
            b.options().remove(OptionNumber.SIZE1).remove(OptionNumber.SIZE2);
        }
        return b.build();
    }
}
