package io.stagecoach.core.endpoint;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Where a client sends new requests for a peer that released its connection with an
 * Alternative-Address (RFC 8323 §5.5): the peer's address is replaced by the first alternative
 * that is an IP literal, on the same scheme (the endpoint has one transport, so a followed
 * address is always of the released connection's scheme). Host names are not followed: resolving
 * one would block the connection's I/O thread, and a name is not checked any better than a
 * literal. Bounded; thread-safe.
 */
final class ReleaseRedirects {

    /** Redirected peers remembered at most; a Release beyond it is obeyed but not followed. */
    static final int MAX_REDIRECTS = 10_000;
    /** Redirects followed in a row at most (a released alternative may name another). */
    static final int MAX_HOPS = 4;

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern PORT = Pattern.compile("\\d{1,5}");

    private final ConcurrentHashMap<InetSocketAddress, InetSocketAddress> to = new ConcurrentHashMap<>();

    /**
     * Records that requests for {@code released} go to the first usable address of
     * {@code alternatives} from now on.
     *
     * @param defaultPort the port of an authority without one (the scheme's default port)
     * @return the address followed, or {@code null} when none is usable (or the bound is reached)
     */
    InetSocketAddress follow(InetSocketAddress released, List<String> alternatives, int defaultPort) {
        for (String a : alternatives) {
            InetSocketAddress target = parse(a, defaultPort);
            if (target == null || target.equals(released)) {
                continue;
            }
            if (to.size() >= MAX_REDIRECTS && !to.containsKey(released)) {
                return null;
            }
            to.put(released, target);
            to.remove(target); // a peer that is used again is no longer redirected
            return target;
        }
        return null;
    }

    /** Where requests for {@code peer} go: itself, or its alternative (followed up to {@link #MAX_HOPS}). */
    InetSocketAddress destination(InetSocketAddress peer) {
        if (to.isEmpty()) {
            return peer;
        }
        InetSocketAddress d = peer;
        for (int i = 0; i < MAX_HOPS; i++) {
            InetSocketAddress next = to.get(d);
            if (next == null) {
                break;
            }
            d = next;
        }
        return d;
    }

    /**
     * An RFC 3986 §3.2 authority of IP literals only: {@code 192.0.2.1}, {@code 192.0.2.1:5700},
     * {@code [2001:db8::1]}, {@code [2001:db8::1]:5700}; {@code null} for anything else (host
     * names, user info, URIs, ports outside 1..65535).
     */
    static InetSocketAddress parse(String authority, int defaultPort) {
        String host;
        String port = null;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                return null;
            }
            host = authority.substring(1, close);
            String rest = authority.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    return null;
                }
                port = rest.substring(1);
            }
            if (host.indexOf(':') < 0 || !host.matches("[0-9A-Fa-f:.]+")) {
                return null; // IPvFuture and zone IDs are not followed either
            }
        } else {
            int colon = authority.indexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            port = colon < 0 ? null : authority.substring(colon + 1);
            if (!IPV4.matcher(host).matches()) {
                return null;
            }
        }
        int p = defaultPort;
        if (port != null) {
            if (!PORT.matcher(port).matches()) {
                return null;
            }
            p = Integer.parseInt(port);
            if (p < 1 || p > 65_535) {
                return null;
            }
        }
        try {
            // a literal: no name service is asked
            return new InetSocketAddress(InetAddress.getByName(host), p);
        } catch (UnknownHostException | IllegalArgumentException e) {
            return null; // e.g. an IPv4 part above 255
        }
    }
}
