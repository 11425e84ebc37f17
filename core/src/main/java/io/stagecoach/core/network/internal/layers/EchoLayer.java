package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.OptionNumber;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.internal.AddressVerifier;
import io.stagecoach.core.network.internal.PeerKey;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Echo option (RFC 9175 §2) for address verification, both sides:
 * <ul>
 *   <li><b>server:</b> a request carrying an Echo value this endpoint issued to its address, still
 *       fresh, verifies that address ({@link AddressVerifier}); the request then goes up as usual
 *       and its answer is no longer held to the amplification limit;</li>
 *   <li><b>client:</b> a 4.01 Unauthorized carrying Echo is answered by repeating the request once
 *       with that Echo value (RFC 9175 §2.3), on the same exchange and token; the 4.01 reaches the
 *       application only if the repeat draws another. An Echo value in any other response (a
 *       server's first block sized to its amplification limit, §2.4) goes out with the next
 *       request to that server, once; at most {@value #REMEMBERED} servers' values are kept.</li>
 * </ul>
 * The endpoint issues the challenges itself (see its outbox) when an answer would exceed the
 * limit.
 */
public final class EchoLayer extends AbstractLayer {

    /** A client exchange already repeated with Echo: a second 4.01 is the answer. */
    private static final Exchange.Slot<Boolean> REPEATED = new Exchange.Slot<>("echo-repeated", Boolean.class);

    /** Servers whose Echo value waits for our next request, at most. */
    static final int REMEMBERED = 1024;

    private final AddressVerifier verifier;
    /** Echo values servers sent in responses other than 4.01, for the next request to each. */
    private final ConcurrentHashMap<PeerKey, byte[]> pending = new ConcurrentHashMap<>();

    public EchoLayer(AddressVerifier verifier) {
        this.verifier = verifier;
    }

    @Override
    public void sendRequest(LayerContext ctx, Exchange exchange, Request request) {
        Request r = request;
        if (!pending.isEmpty() && request.options().echo() == null) {
            byte[] echo = pending.remove(new PeerKey(exchange.peer().peer()));
            if (echo != null) {
                r = request.newBuilder().options(o -> o.echo(echo)).build();
                exchange.setCurrentRequest(r);
            }
        }
        ctx.sendRequest(exchange, r);
    }

    /** Echo (elective, RFC 9175 §2.2.1). */
    @Override
    public Set<OptionNumber> options() {
        return Set.of(OptionNumber.ECHO);
    }

    @Override
    public void receiveRequest(LayerContext ctx, Exchange exchange, Request request) {
        byte[] echo = request.options().echo();
        if (echo != null) {
            verifier.checkEcho(exchange.peer().peer(), echo);
        }
        ctx.receiveRequest(exchange, request);
    }

    @Override
    public void receiveResponse(LayerContext ctx, Exchange exchange, Response response) {
        boolean unauthorized = response.code().equals(Code.UNAUTHORIZED);
        if (!unauthorized && exchange.isLocal() && response.options().echo() != null
                && pending.size() < REMEMBERED) {
            pending.put(new PeerKey(exchange.peer().peer()), response.options().echo());
        }
        byte[] echo = unauthorized ? response.options().echo() : null;
        if (echo == null || !exchange.isLocal() || exchange.get(REPEATED) != null || exchange.isComplete()) {
            ctx.receiveResponse(exchange, response);
            return;
        }
        Request sent = exchange.currentRequest();
        if (Arrays.equals(echo, sent.options().echo())) {
            ctx.receiveResponse(exchange, response); // it carried this very value: nothing to repeat
            return;
        }
        exchange.set(REPEATED, Boolean.TRUE);
        Request again = sent.newBuilder().mid(-1).options(o -> o.echo(echo)).build();
        exchange.setCurrentRequest(again);
        ctx.sendRequest(exchange, again);
    }

    /** Holds exchanges only through its slot state, completion hooks and the store (which hooks). */
    @Override
    public boolean keepsExchanges() {
        return false;
    }
}
