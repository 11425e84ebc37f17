package io.stagecoach.core.network.internal.layers;

import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.core.network.ExchangeFailedException;
import io.stagecoach.core.network.internal.ExchangeStore;
import io.stagecoach.core.network.internal.TokenGenerator;
import io.stagecoach.core.network.stack.AbstractLayer;
import io.stagecoach.core.network.stack.LayerContext;

/**
 * Tokens (RFC 7252 §5.3.1): gives each outgoing request without a token a fresh one that no other
 * open request to the same peer uses, and registers the exchange under (peer, token) so that its
 * response can be matched (§5.3.2).
 *
 * <p>A request that already carries a token keeps it (re-registration, blockwise follow-ups,
 * applications that choose their own); if another open exchange with that peer holds it, the
 * exchange fails. With TOKEN_LENGTH 0 only one request per peer can be open at a time.
 */
public final class TokenLayer extends AbstractLayer {

    private final TokenGenerator tokens;
    private final ExchangeStore store;

    public TokenLayer(TokenGenerator tokens, ExchangeStore store) {
        this.tokens = tokens;
        this.store = store;
    }

    @Override
    public void sendRequest(LayerContext ctx, Exchange exchange, Request request) {
        Request r = request;
        if (r.token().isEmpty() && tokens.length() > 0) {
            byte[] t;
            try {
                t = tokens.newToken(exchange.peer().peer(),
                        candidate -> store.findByToken(exchange.peer().peer(), Token.of(candidate)) != null);
            } catch (IllegalStateException e) {
                exchange.fail(new ExchangeFailedException(e.getMessage(), e));
                return;
            }
            r = r.withToken(Token.of(t));
            exchange.setCurrentRequest(r);
        }
        if (!store.registerToken(exchange, r.token())) {
            exchange.fail(new ExchangeFailedException("token " + r.token() + " is in use by another open request to "
                    + exchange.peer().peer()));
            return;
        }
        ctx.sendRequest(exchange, r);
    }

    /** Holds exchanges only through its slot state, completion hooks and the store (which hooks). */
    @Override
    public boolean keepsExchanges() {
        return false;
    }
}
