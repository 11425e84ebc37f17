package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Token;
import io.stagecoach.core.network.Exchange;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The Pongs with Custody of one connection that wait for the requests received before their
 * Ping to be answered (RFC 8323 §5.4.1). Thread-safe; a connection without a waiting Pong pays
 * one volatile read per answer.
 */
final class PongCustody {

    /** A Pong's token and the exchanges it still waits for. */
    private record Held(Token token, Set<Exchange> waitingFor) {
    }

    private final List<Held> held = new ArrayList<>(0); // guarded by this
    private volatile boolean empty = true;

    /** Holds the Pong for {@code token} until every exchange of {@code waitingFor} has been answered. */
    synchronized void hold(Token token, Set<Exchange> waitingFor) {
        held.add(new Held(token, waitingFor));
        empty = false;
    }

    /**
     * {@code exchange} has been answered or ended.
     *
     * @return the tokens of the Pongs that may go now, or {@code null}
     */
    List<Token> answered(Exchange exchange) {
        if (empty) {
            return null;
        }
        List<Token> due = null;
        synchronized (this) {
            for (int i = 0; i < held.size(); i++) {
                Held h = held.get(i);
                if (h.waitingFor.remove(exchange) && h.waitingFor.isEmpty()) {
                    if (due == null) {
                        due = new ArrayList<>(1);
                    }
                    due.add(h.token);
                    held.remove(i--);
                }
            }
            empty = held.isEmpty();
        }
        return due;
    }
}
