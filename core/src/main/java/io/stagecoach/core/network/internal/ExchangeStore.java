package io.stagecoach.core.network.internal;

import io.stagecoach.core.coap.Token;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.EndpointContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open exchanges of an endpoint, found in one lookup per incoming message.
 *
 * <ul>
 *   <li>by (peer, MID): exchanges waiting for an ACK or RST to a CON or NON message this endpoint
 *       sent (RFC 7252 §4.2, §4.3) — client requests and server separate responses;</li>
 *   <li>by (peer, token): client requests waiting for their response (RFC 7252 §5.3.2).</li>
 * </ul>
 *
 * <p>Incoming requests are remembered by the deduplication store, not here. An exchange records
 * which keys it holds (see {@link #remove(Exchange)}), so completion removes exactly those.
 */
public final class ExchangeStore {

    /** The (peer, MID) key of RFC 7252 §4.5; keyed hash and ordered ({@link PeerHashing}). */
    public record MidKey(InetSocketAddress peer, int mid) implements Comparable<MidKey> {
        @Override
        public int hashCode() {
            return PeerHashing.hash(peer) * 31 + mid;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof MidKey k && k.mid == mid && k.peer.equals(peer);
        }

        @Override
        public int compareTo(MidKey o) {
            int c = PeerHashing.compare(peer, o.peer);
            return c != 0 ? c : Integer.compare(mid, o.mid);
        }
    }

    /**
     * The (peer, token) key of RFC 7252 §5.3.2; keyed hash and ordered, since a peer chooses the
     * tokens of the responses it sends.
     */
    public record TokenKey(InetSocketAddress peer, Token token) implements Comparable<TokenKey> {
        @Override
        public int hashCode() {
            return PeerHashing.hash(peer) * 31 + token.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TokenKey k && k.token.equals(token) && k.peer.equals(peer);
        }

        @Override
        public int compareTo(TokenKey o) {
            int c = PeerHashing.compare(peer, o.peer);
            return c != 0 ? c : token.compareTo(o.token);
        }
    }

    /** Keys an exchange holds in this store; the store's own slot in the exchange. */
    private static final class Keys {
        final List<MidKey> mids = new ArrayList<>(2);
        TokenKey token;
    }

    private static final Exchange.Slot<Keys> KEYS = new Exchange.Slot<>("store-keys", Keys.class);

    private final ConcurrentHashMap<MidKey, Exchange> byMid = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<TokenKey, Exchange> byToken = new ConcurrentHashMap<>();

    /**
     * Registers the exchange under (peer, mid); the caller holds the exchange.
     *
     * @throws IllegalStateException when another open exchange already uses the key: a MID
     *         provider bug, never expected
     */
    public void registerMid(Exchange exchange, int mid) {
        MidKey key = new MidKey(exchange.peer().peer(), mid);
        Exchange previous = byMid.putIfAbsent(key, exchange);
        if (previous != null && previous != exchange) {
            throw new IllegalStateException("MID " + mid + " for " + key.peer() + " is in use by " + previous);
        }
        keys(exchange).mids.add(key);
    }

    /**
     * Registers the exchange under (peer, token) unless another open exchange has it.
     *
     * @return {@code false} when the token is taken
     */
    public boolean registerToken(Exchange exchange, Token token) {
        TokenKey key = new TokenKey(exchange.peer().peer(), token);
        Exchange previous = byToken.putIfAbsent(key, exchange);
        if (previous != null && previous != exchange) {
            return false;
        }
        keys(exchange).token = key;
        return true;
    }

    public Exchange findByMid(InetSocketAddress peer, int mid) {
        return byMid.get(new MidKey(peer, mid));
    }

    public Exchange findByToken(InetSocketAddress peer, Token token) {
        return byToken.get(new TokenKey(peer, token));
    }

    /** Removes one (peer, MID) registration, e.g. once its ACK arrived. */
    public void removeMid(Exchange exchange, int mid) {
        MidKey key = new MidKey(exchange.peer().peer(), mid);
        byMid.remove(key, exchange);
        Keys k = exchange.get(KEYS);
        if (k != null) {
            k.mids.remove(key);
        }
    }

    /**
     * Keeps only the {@code keep} most recent (peer, MID) registrations of a long-lived exchange
     * (an observe relation sends a new notification, with a new MID, on the same exchange): older
     * ones are superseded and would otherwise pile up. The caller holds the exchange.
     */
    public void trimMids(Exchange exchange, int keep) {
        Keys k = exchange.get(KEYS);
        if (k == null) {
            return;
        }
        while (k.mids.size() > keep) {
            byMid.remove(k.mids.remove(0), exchange);
        }
    }

    /** (peer, MID) registrations the exchange holds (for tests of long-lived exchanges). */
    public int midsOf(Exchange exchange) {
        Keys k = exchange.get(KEYS);
        return k == null ? 0 : k.mids.size();
    }

    /**
     * Moves the exchange to {@code moved}, a new address of the same peer (a DTLS session with a
     * connection ID, RFC 9146 §6): its (peer, MID) and (peer, token) registrations are re-made
     * under the new address, so that the ACK or RST the peer sends from there finds it. A key
     * another exchange holds at the new address stays that exchange's. The caller holds the
     * exchange.
     */
    public void move(Exchange exchange, EndpointContext moved) {
        InetSocketAddress to = moved.peer();
        Keys k = exchange.get(KEYS);
        if (k != null) {
            for (int i = 0; i < k.mids.size(); i++) {
                MidKey old = k.mids.get(i);
                byMid.remove(old, exchange);
                MidKey key = new MidKey(to, old.mid());
                Exchange other = byMid.putIfAbsent(key, exchange);
                if (other == null || other == exchange) {
                    k.mids.set(i, key);
                } else {
                    k.mids.remove(i--);
                }
            }
            if (k.token != null) {
                byToken.remove(k.token, exchange);
                TokenKey key = new TokenKey(to, k.token.token());
                Exchange other = byToken.putIfAbsent(key, exchange);
                k.token = other == null || other == exchange ? key : null;
            }
        }
        exchange.movePeer(moved);
    }

    /** Removes every registration of the exchange. */
    public void remove(Exchange exchange) {
        Keys k = exchange.get(KEYS);
        if (k == null) {
            return;
        }
        for (MidKey key : k.mids) {
            byMid.remove(key, exchange);
        }
        k.mids.clear();
        if (k.token != null) {
            byToken.remove(k.token, exchange);
            k.token = null;
        }
    }

    /** Open exchanges (an exchange registered under both a MID and a token counts once). */
    public int size() {
        return all().size();
    }

    /** Whether nothing is registered; tests assert this after each scenario. */
    public boolean isEmpty() {
        return byMid.isEmpty() && byToken.isEmpty();
    }

    /** Every open exchange, for shutdown. */
    public List<Exchange> all() {
        Set<Exchange> all = Collections.newSetFromMap(new IdentityHashMap<>());
        all.addAll(byMid.values());
        all.addAll(byToken.values());
        return new ArrayList<>(all);
    }

    private Keys keys(Exchange exchange) {
        Keys k = exchange.get(KEYS);
        if (k == null) {
            k = new Keys();
            exchange.set(KEYS, k);
            exchange.whenComplete(() -> remove(exchange)); // completion frees every key at once
        }
        return k;
    }

    @Override
    public String toString() {
        return "ExchangeStore[byMid=" + byMid.size() + ", byToken=" + byToken.size() + "]";
    }
}
