package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.LayerContext;
import java.io.ByteArrayOutputStream;

/**
 * Server side of Block1 (RFC 7959 §2.5): reassembles an upload and hands the upper stage ONE
 * request with the whole body.
 *
 * <pre>
 *  client                                        server
 *   | CON PUT /r 1:0/1/64 Size1=200 (64 B) ------->|  new upload state (peer, PUT /r, Request-Tag)
 *   |<------------------ ACK 2.31 Continue 1:0/1/64 |
 *   | CON PUT /r 1:1/1/64 (64 B) ------------------>|
 *   |<------------------ ACK 2.31 Continue 1:1/1/64 |
 *   | CON PUT /r 1:2/1/64 (64 B) ------------------>|
 *   |<------------------ ACK 2.31 Continue 1:2/1/64 |
 *   | CON PUT /r 1:3/0/64 (8 B) ------------------->|  state dropped; handler sees 200 bytes
 *   |<---------------------------- ACK 2.04 1:3/0/64 |  (Block1 echoed by the response path)
 * </pre>
 *
 * <ul>
 *   <li>Every block with M=1 is answered 2.31 Continue echoing NUM, M=1 and the request's SZX
 *       (the server never asks for smaller blocks; it accepts any size the client picks).</li>
 *   <li>A block whose offset is not where the body ends, or a NUM &gt; 0 with no upload state
 *       (never started, expired, evicted) → 4.08 Request Entity Incomplete (§2.9.2). A block
 *       re-sent after its 2.31 was lost (offset already covered) is answered 2.31 again.</li>
 *   <li>A Size1 or a body over the maximum body size → 4.13 with Size1 = the maximum (§2.9.3, §4).</li>
 *   <li>Upload state is kept only for a request some resource would serve (it exists and takes
 *       the method): any other gets its 4.04 or 4.05 at the first block. A new upload beyond the
 *       per-source or total cap, or the byte budget, evicts the least recently used transfer.</li>
 *   <li>A block with M=1 whose payload is not exactly the block size → 4.00 (§2.3).</li>
 * </ul>
 */
final class Block1Assembler {

    /** An upload being reassembled. */
    private static final class Upload {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
    }

    private final BlockwiseSettings settings;
    private final BlockwiseStatusStore store;

    Block1Assembler(BlockwiseSettings settings, BlockwiseStatusStore store) {
        this.settings = settings;
        this.store = store;
    }

    /** Handles a request carrying Block1: answers it, or passes the whole request up. */
    void receive(LayerContext ctx, Exchange exchange, Request request, BlockOption block) {
        TransferKey key = TransferKey.upload(exchange.peer().peer(), request);
        long now = ctx.services().scheduler().nanoTime();
        int length = request.payloadLength();
        boolean badLength = block.isBert() ? length == 0 || length % block.size() != 0 : length != block.size();
        if (block.more() && badLength) { // a BERT block carries k x 1024 bytes (RFC 8323 §6)
            store.remove(key);
            answer(ctx, exchange, BlockwiseLayer.diagnostic(request, Code.BAD_REQUEST,
                    "block " + block + " carries " + length + " bytes").build());
            return;
        }
        Upload upload;
        if (block.num() == 0) {
            store.remove(key); // block 0 starts over (RFC 7959 §2.5)
            if (request.options().size1() > settings.maxBodySize()) {
                answer(ctx, exchange, tooLarge(ctx, exchange, request));
                return;
            }
            if (!block.more()) {
                deliver(ctx, exchange, request, block, request.payload());
                return;
            }
            if (!ctx.services().accepts(request)) {
                ctx.receiveRequest(exchange, request); // 4.04 or 4.05 from the resource stage; no state
                return;
            }
            upload = new Upload();
            store.put(key, upload, 0, now, ctx.services().scheduler());
        } else {
            upload = store.get(key, Upload.class, now);
            if (upload == null) {
                answer(ctx, exchange, incomplete(request, "no upload in progress for block " + block));
                return;
            }
        }
        long received = upload.body.size();
        if (block.offset() < received && block.offset() + length <= received && block.more()) {
            answer(ctx, exchange, continueFor(request, block)); // a re-sent block whose 2.31 was lost
            return;
        }
        if (block.offset() != received) {
            store.remove(key);
            answer(ctx, exchange, incomplete(request, "block " + block + " at offset " + block.offset()
                    + ", expected offset " + received));
            return;
        }
        if (received + length > settings.maxBodySize()) {
            store.remove(key);
            answer(ctx, exchange, tooLarge(ctx, exchange, request));
            return;
        }
        upload.body.write(request.payload(), 0, length);
        if (block.more() && !store.resize(key, upload.body.size())) {
            answer(ctx, exchange, tooLarge(ctx, exchange, request));
            return;
        }
        if (block.more()) {
            answer(ctx, exchange, continueFor(request, block));
        } else {
            store.remove(key);
            deliver(ctx, exchange, request, block, upload.body.toByteArray());
        }
    }

    /** Passes the reassembled request up; the response path echoes {@code last} (§2.3). */
    private static void deliver(LayerContext ctx, Exchange exchange, Request last, BlockOption block, byte[] body) {
        Request.Builder b = last.newBuilder().payload(body);
        b.options().remove(OptionNumber.BLOCK1).remove(OptionNumber.SIZE1);
        Request whole = b.build();
        exchange.setRequest(whole);
        BlockwiseLayer.serverState(exchange).block1Echo = BlockOption.of(block.num(), false, block.szx(), true);
        ctx.receiveRequest(exchange, whole);
    }

    private static Response continueFor(Request request, BlockOption block) {
        Response.Builder b = Response.forRequest(request, Code.CONTINUE);
        b.options().block1(BlockOption.of(block.num(), true, block.szx(), true));
        return b.build();
    }

    private static Response incomplete(Request request, String why) {
        return BlockwiseLayer.diagnostic(request, Code.REQUEST_ENTITY_INCOMPLETE, why).build();
    }

    private Response tooLarge(LayerContext ctx, Exchange exchange, Request request) {
        ctx.services().limitExceeded(exchange.peer().peer(),
                "block-wise body over " + settings.maxBodySize() + " bytes");
        Response.Builder b = Response.forRequest(request, Code.REQUEST_ENTITY_TOO_LARGE);
        b.options().size1(settings.maxBodySize());
        return b.build();
    }

    /** Sends a response this layer made itself, below this layer (the upper stage never sees the block). */
    private static void answer(LayerContext ctx, Exchange exchange, Response response) {
        ctx.sendResponse(exchange, response.withPeer(exchange.peer()));
    }
}
