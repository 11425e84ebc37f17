package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.stack.LayerContext;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Client side of Observe + Block2 (RFC 7959 §2.6, RFC 7641): a notification too large for one
 * message arrives as its first block (Block2 NUM=0 M=1, with Observe). This fetches the other
 * blocks and hands the observe relation one notification with the whole body and the first
 * block's options (Observe, Max-Age, ETag, Content-Format).
 *
 * <pre>
 *  client                                    server
 *   |<---- NON 2.05 Obs=7 2:0/1/64 ETag=e7  T=r1 |  the notification's first block
 *   | CON GET /obs-large 2:1/0/64 T=f1 -------->|  follow-up: new token, no Observe
 *   |<---- ACK 2.05 2:1/1/64 ETag=e7            |  served from the server's cache
 *   | CON GET /obs-large 2:2/0/64 T=f1 -------->|
 *   |<---- ACK 2.05 2:2/0/64 ETag=e7            |  → relation r1 gets Obs=7 with 162 bytes
 * </pre>
 *
 * <p>The follow-up is its own exchange (new token, so a notification on the relation's token can
 * never be taken for a block); {@link BlockwiseClient} runs the transfer from the first block on,
 * so the ETag and offset checks and the body limit are the usual ones. A newer first block
 * cancels a follow-up still running for the same relation: the server's cache now holds the newer
 * representation, and the old transfer could only fail or mix bodies (RFC 7959 §2.6 — without an
 * ETag the client cannot tell, so observable resources with large bodies should set one). A failed
 * follow-up loses that notification only; the relation goes on.
 */
final class ObserveBlockFetcher {

    /** What a follow-up exchange is for. */
    private record FollowUp(Exchange relation, Response firstBlock) {
    }

    private static final Exchange.Slot<FollowUp> FOLLOW_UP = new Exchange.Slot<>("observe-follow-up", FollowUp.class);
    /** On the relation's exchange: the follow-up running for it. */
    private static final Exchange.Slot<Exchange> RUNNING = new Exchange.Slot<>("observe-running-follow-up", Exchange.class);

    private final AtomicInteger active = new AtomicInteger();

    int active() {
        return active.get();
    }

    boolean isFollowUp(Exchange exchange) {
        return exchange.get(FOLLOW_UP) != null;
    }

    /** Starts fetching the blocks after {@code firstBlock}, a notification on {@code relation}. */
    void fetch(LayerContext ctx, Exchange relation, Response firstBlock) {
        Exchange previous = relation.get(RUNNING);
        if (previous != null && !previous.isComplete()) {
            ctx.services().execute(previous, previous::complete);
        }
        Request.Builder b = relation.request().newBuilder().token(Token.EMPTY).mid(-1).type(relation.request().type());
        b.options().remove(OptionNumber.OBSERVE);
        Request request = b.build();
        Exchange followUp = new Exchange(Exchange.Origin.LOCAL, request, relation.peer(),
                ctx.services().scheduler().nanoTime(), null);
        relation.set(RUNNING, followUp);
        active.incrementAndGet();
        followUp.whenComplete(active::decrementAndGet);
        followUp.execute(() -> {
            followUp.set(FOLLOW_UP, new FollowUp(relation, firstBlock));
            followUp.set(BlockwiseClient.CONTINUE_FROM, firstBlock);
            ctx.sendRequest(followUp, request);
        });
    }

    /** The follow-up's final answer (the whole body, or an error that ends it). */
    void onWhole(LayerContext ctx, Exchange followUp, Response whole) {
        FollowUp f = followUp.get(FOLLOW_UP);
        followUp.complete();
        if (!whole.code().isSuccess()) {
            return; // this notification is lost; the next one will come
        }
        Response.Builder n = f.firstBlock().newBuilder().payload(whole.payload());
        n.options().remove(OptionNumber.BLOCK2).remove(OptionNumber.SIZE2);
        Response notification = n.build();
        Exchange relation = f.relation();
        ctx.services().execute(relation, () -> {
            if (relation.get(RUNNING) == followUp) {
                relation.set(RUNNING, null);
            }
            if (!relation.isComplete()) {
                ctx.receiveResponse(relation, notification);
            }
        });
    }
}
