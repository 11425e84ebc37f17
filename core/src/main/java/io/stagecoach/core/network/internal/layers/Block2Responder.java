package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.BlockOption;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.UdpMessageSerializer;
import io.stagecoach.core.network.EndpointCounters;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.LayerContext;

/**
 * Server side of Block2 (RFC 7959 §2.4): transparent slicing of large responses, with one cached
 * representation per {@link TransferKey} for the follow-up requests.
 *
 * <pre>
 *  client                                  server
 *   | CON GET /big --------------------------->|  handler runs: 1280 bytes
 *   |<------------- ACK 2.05 2:0/1/512 ETag=e1 |  whole response cached under (peer, GET /big)
 *   | CON GET /big 2:1/0/512 ----------------->|  served from the cache, handler not run
 *   |<------------- ACK 2.05 2:1/1/512 ETag=e1 |
 *   | CON GET /big 2:2/0/512 ----------------->|
 *   |<------------- ACK 2.05 2:2/0/512 ETag=e1 |  last block: cache entry dropped
 * </pre>
 *
 * <ul>
 *   <li>A response is sliced when its payload exceeds the maximum message size, or when the request
 *       carried Block2 (early negotiation, §2.4) and the payload exceeds the block size asked.
 *       Blocks use the smaller of the preferred size and the requested SZX; a request for a
 *       smaller SZX later (late negotiation) is served at that size, from the same byte offset.</li>
 *   <li>Every block carries all options of the whole response: Content-Format, and the ETag when
 *       the resource set one. No ETag is invented: an ETag is a validator the resource must honour
 *       in If-Match and 2.03 answers, which the layer cannot do for it.</li>
 *   <li>Random access: a request for block NUM &gt; 0 is answered from the cached representation;
 *       with none (expired, evicted, never fetched) the handler runs again and the requested block
 *       of its answer is sent (and the rest cached). A request for block 0 always runs the handler.</li>
 *   <li>NUM past the end → 4.02 Bad Option. Size2 in the request (normally 0) → Size2 with the
 *       whole length in every block (§4).</li>
 *   <li>A response that already carries Block2 is the resource's own block-wise answer and passes
 *       untouched.</li>
 *   <li>Observe hook: a notification larger than a block goes out as its first block (with
 *       Observe) and is cached like any other representation, so the client's follow-up GETs
 *       (without Observe) are served from it and answered without Observe (RFC 7959 §2.6).</li>
 * </ul>
 */
final class Block2Responder {

    /** A representation cached for follow-up requests. */
    private record Cached(Response whole) {
    }

    private final BlockwiseSettings settings;
    private final BlockwiseStatusStore store;
    private final BlockwiseLayer layer;

    Block2Responder(BlockwiseSettings settings, BlockwiseStatusStore store, BlockwiseLayer layer) {
        this.settings = settings;
        this.store = store;
        this.layer = layer;
    }

    /**
     * Handles a request carrying Block2 and no Block1: serves NUM &gt; 0 from the cache when it can,
     * else passes the request up.
     */
    void receive(LayerContext ctx, Exchange exchange, Request request, BlockOption asked) {
        if (asked.num() > 0) {
            TransferKey key = TransferKey.download(exchange.peer().peer(), request);
            Cached cached = store.get(key, Cached.class, ctx.services().scheduler().nanoTime());
            if (cached != null) {
                Response.Builder b = cached.whole().newBuilder().token(request.token()).peer(exchange.peer());
                b.options().remove(OptionNumber.OBSERVE); // follow-ups are plain GETs (RFC 7959 §2.6)
                Response whole = b.build();
                int bert = layer.bert(exchange);
                BlockOption target = Block2Slicer.target(asked, settings.szx(), bert);
                if (!Block2Slicer.inRange(target, whole.payloadLength())) {
                    ctx.sendResponse(exchange, Block2Slicer.outOfRange(request, target, whole.payloadLength()));
                    return;
                }
                Response slice = Block2Slicer.slice(whole, target, request.options().size2() >= 0, bert);
                if (!BlockwiseLayer.block2(slice.options(), bert).more()) {
                    store.remove(key);
                }
                ctx.sendResponse(exchange, slice);
                return;
            }
        }
        ctx.receiveRequest(exchange, request);
    }

    /** An upper bound of the datagram {@code response} encodes to, without encoding anything. */
    private static int lengthBound(Response response) {
        OptionSet o = response.options();
        int bound = 4 + response.tokenLength() + 1 + response.payloadLength();
        for (int i = 0; i < o.size(); i++) {
            bound += 5 + o.valueLength(i); // header byte and at most 4 bytes of extended delta and length
        }
        return bound;
    }

    /** The datagram {@code response} encodes to (its type and MID, not set yet, change nothing). */
    private static int length(Response response) {
        return SERIALIZER.encodedLength(response.withTypeAndMid(Type.ACK, 0));
    }

    private static final UdpMessageSerializer SERIALIZER = new UdpMessageSerializer();

    /**
     * Sends {@code response} to the request of {@code exchange}, sliced when it needs to be: larger
     * than the maximum message size, asked for in blocks, or larger than an unverified address may
     * be sent (then the first block is sized to fit the amplification budget).
     */
    void send(LayerContext ctx, Exchange exchange, Response response) {
        Request request = exchange.request();
        int bert = layer.bert(exchange);
        BlockOption asked = BlockwiseLayer.block2(request.options(), bert);
        int length = response.payloadLength();
        int szx = settings.szx();
        Response toSlice = response;
        Fitted fitted = fitToLimit(ctx, exchange, response, asked, szx);
        if (fitted != null) {
            toSlice = fitted.response();
            szx = fitted.szx();
            ctx.services().counters().increment(EndpointCounters.Counter.AMPLIFICATION_LIMITED);
        }
        boolean limited = fitted != null;
        boolean large = length > settings.maxMessageSize() || limited;
        boolean negotiated = asked != null && response.code().isSuccess();
        if (response.options().has(OptionNumber.BLOCK2) || !(large || negotiated)) {
            ctx.sendResponse(exchange, response);
            return;
        }
        BlockOption target = Block2Slicer.target(asked, szx, bert);
        if (!Block2Slicer.inRange(target, length)) {
            ctx.sendResponse(exchange, Block2Slicer.outOfRange(request, target, length));
            return;
        }
        Response slice = Block2Slicer.slice(toSlice, target, request.options().size2() >= 0, bert);
        TransferKey key = TransferKey.download(exchange.peer().peer(), request);
        if (BlockwiseLayer.block2(slice.options(), bert).more()) {
            Response.Builder whole = response.newBuilder().type(null).mid(-1);
            whole.options().remove(OptionNumber.BLOCK1); // the upload's echo belongs to its last block only
            Response cached = whole.build();
            store.put(key, new Cached(cached), cached.payloadLength(), ctx.services().scheduler().nanoTime(),
                    ctx.services().scheduler());
        } else {
            store.remove(key);
        }
        ctx.sendResponse(exchange, slice);
    }

    /** A first block sized to the amplification limit: the response to slice (with Echo) and the SZX. */
    private record Fitted(Response response, int szx) {
    }

    /**
     * For an unverified address whose answer exceeds the amplification limit (RFC 7252 §11.3):
     * the largest first block, at most {@code szx}, that fits factor × the request; ETSI
     * TD_COAP_BLOCK_01 lets a server answer with an SZX at most the one asked for. The block
     * carries an Echo value, so that the client's next request verifies its address (RFC 9175
     * §2.4) and its next transfer goes at full size, if the budget has room for it.
     * {@code null} when the answer fits as it is,
     * is not a success with a payload, or not even a 16-byte block fits.
     */
    private static Fitted fitToLimit(LayerContext ctx, Exchange exchange, Response response, BlockOption asked,
            int szx) {
        if (response.payloadLength() == 0 || !response.code().isSuccess()) {
            return null;
        }
        long budget = ctx.services().amplificationBudget(exchange);
        if (budget == Long.MAX_VALUE || lengthBound(response) <= budget || length(response) <= budget
                || ctx.services().isAddressVerified(exchange.peer().peer())) {
            return null;
        }
        byte[] echo = ctx.services().echoChallenge(exchange.peer().peer());
        if (echo != null) {
            Response.Builder b = response.newBuilder();
            b.options().echo(echo);
            Fitted withEcho = largestFitting(b.build(), exchange, asked, szx, budget);
            if (withEcho != null) {
                return withEcho;
            }
        }
        return largestFitting(response, exchange, asked, szx, budget); // too small a budget for Echo too
    }

    private static Fitted largestFitting(Response response, Exchange exchange, BlockOption asked, int szx,
            long budget) {
        boolean size2 = exchange.request().options().size2() >= 0;
        for (int s = szx; s >= 0; s--) {
            BlockOption target = Block2Slicer.target(asked, s, BlockwiseLayer.BERT_OFF);
            if (Block2Slicer.inRange(target, response.payloadLength())
                    && length(Block2Slicer.slice(response, target, size2)) <= budget) {
                return new Fitted(response, s);
            }
        }
        return null;
    }
}
