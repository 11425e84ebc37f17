package io.stagecoach.core.endpoint;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.SignalingMessage;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.network.Exchange;
import io.stagecoach.elements.time.Scheduler;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The signals a peer sends (RFC 8323 §5), on its connection's I/O thread: CSM sets what we may
 * send; Ping is answered with Pong (with Custody once every request received before it has been
 * answered); Pong completes our Ping; Release makes the connection refuse new requests and close
 * once its exchanges are done; a client follows its Alternative-Address ({@link ReleaseRedirects})
 * when allowed, else its Hold-Off keeps new requests to that peer failing for that long; Abort
 * closes the connection. Any signal before the peer's CSM aborts.
 */
final class ReliableSignals {

    private static final Logger LOG = LoggerFactory.getLogger(ReliableTransport.class);

    private final ReliableConnections connections;
    private final ReleaseRedirects redirects;
    private final int defaultPort;
    private final ReliableControl control;
    private final Scheduler scheduler;
    private final LongAdder signalsReceived;
    private final LongAdder abortsReceived;

    /**
     * @param redirects   where a client's followed alternatives go, {@code null} when none are followed
     * @param defaultPort the scheme's port, for an Alternative-Address without one
     */
    ReliableSignals(ReliableConnections connections, ReleaseRedirects redirects, int defaultPort,
            ReliableControl control, Scheduler scheduler, LongAdder signalsReceived, LongAdder abortsReceived) {
        this.connections = connections;
        this.redirects = redirects;
        this.defaultPort = defaultPort;
        this.control = control;
        this.scheduler = scheduler;
        this.signalsReceived = signalsReceived;
        this.abortsReceived = abortsReceived;
    }

    void receive(ReliableConnection c, SignalingMessage s) {
        signalsReceived.increment();
        if (!c.csmReceived && s.code() != Code.CSM) {
            control.abort(c, -1, "the first message must be a CSM (RFC 8323 5.3)");
            return;
        }
        if (s.code() == Code.CSM) {
            long max = s.maxMessageSize();
            if (max >= 0) {
                c.peerMaxMessageSize = max;
            }
            if (s.blockWiseTransfer()) {
                c.peerBlockWise = true;
            }
            c.csmReceived = true;
        } else if (s.code() == Code.PING) {
            if (s.custody()) {
                pongAfterCustody(c, s.token());
            } else {
                control.send(c.context, SignalingMessage.pong(s.token(), false));
            }
        } else if (s.code() == Code.PONG) {
            Exchange ping = c.pings.remove(s.token());
            if (ping != null) {
                ping.execute(ping::complete);
            }
        } else if (s.code() == Code.RELEASE) {
            LOG.debug("{} released by the peer (alternative addresses {}, hold-off {} s): {}", c,
                    s.alternativeAddresses(), s.holdOff(), s.diagnostic());
            c.released = true;
            List<String> alternatives = s.alternativeAddresses();
            if (redirects != null && !alternatives.isEmpty()) {
                InetSocketAddress to = redirects.follow(c.peer, alternatives, defaultPort);
                LOG.debug("{}: new requests go to {}", c, to != null ? to : c.peer + " (no alternative is an IP literal)");
            }
            // with an alternative followed, the Hold-Off still keeps us off the released address
            long holdOff = s.holdOff();
            if (holdOff > 0) {
                connections.holdOff(c.peer, scheduler.nanoTime() + holdOff * 1_000_000_000L);
            }
            control.closeWhenDone(c);
        } else if (s.code() == Code.ABORT) {
            abortsReceived.increment();
            LOG.debug("{} aborted by the peer: {}", c, s.diagnostic());
            control.close(c);
        }
        // other 7.xx codes are not defined: ignored
    }

    private void pongAfterCustody(ReliableConnection c, Token token) {
        Set<Exchange> waiting = ConcurrentHashMap.newKeySet();
        for (Exchange e : c.exchanges.snapshot()) {
            if (!e.isLocal() && e.currentResponse() == null) {
                waiting.add(e);
            }
        }
        if (waiting.isEmpty()) {
            control.send(c.context, SignalingMessage.pong(token, true));
            return;
        }
        c.custody.hold(token, waiting);
    }

    /** A request on {@code c} has been answered or ended: Pongs with Custody may go now. */
    void answered(ReliableConnection c, Exchange exchange) {
        List<Token> due = c.custody.answered(exchange);
        if (due != null) {
            for (Token t : due) {
                control.send(c.context, SignalingMessage.pong(t, true));
            }
        }
    }
}
