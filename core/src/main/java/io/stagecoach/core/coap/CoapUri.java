package io.stagecoach.core.coap;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An absolute {@code coap://} or {@code coaps://} URI split into what a request carries
 * (RFC 7252 §6): host, port, path segments and query arguments, all percent-decoded. The
 * schemes of CoAP over TCP, TLS and WebSockets (RFC 8323 §8: {@code coap+tcp}, {@code coaps+tcp},
 * {@code coap+ws}, {@code coaps+ws}) decompose the same way, with their own default ports
 * ({@link #defaultPort(String)}); for the WebSocket schemes the path is the resource's, the
 * WebSocket itself is always at {@code /.well-known/coap}.
 *
 * <p>{@link #parse(String)} follows the decomposition of §6.4, {@link #toString()} the
 * composition of §6.5. Host names are never resolved implicitly: {@link #destination()} gives an
 * unresolved address for a name, {@link #resolve()} asks DNS.
 */
public final class CoapUri {

    public static final int DEFAULT_PORT = 5683;
    public static final int DEFAULT_SECURE_PORT = 5684;

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    /** The schemes this class parses (RFC 7252 §6, RFC 8323 §8). */
    public static final List<String> SCHEMES = List.of("coap", "coaps", "coap+tcp", "coaps+tcp", "coap+ws", "coaps+ws");

    private final String scheme;
    private final boolean secure;
    private final String host;
    private final int port;
    private final List<String> path;
    private final List<String> query;

    private CoapUri(String scheme, String host, int port, List<String> path, List<String> query) {
        this.scheme = scheme;
        this.secure = scheme.startsWith("coaps");
        this.host = host;
        this.port = port;
        this.path = List.copyOf(path);
        this.query = List.copyOf(query);
    }

    /** A URI from parts; {@code port} -1 means the scheme's default. */
    public static CoapUri of(boolean secure, String host, int port, List<String> path, List<String> query) {
        return of(secure ? "coaps" : "coap", host, port, path, query);
    }

    /**
     * A URI of any of the {@link #SCHEMES} from parts; {@code port} -1 means the scheme's default.
     *
     * @throws IllegalArgumentException for another scheme
     */
    public static CoapUri of(String scheme, String host, int port, List<String> path, List<String> query) {
        Objects.requireNonNull(host, "host");
        int defaultPort = defaultPort(scheme);
        if (port < -1 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        int p = port == -1 ? defaultPort : port;
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return new CoapUri(scheme, h, p, path, query);
    }

    /**
     * The default port of a scheme: 5683 for coap and coap+tcp, 5684 for coaps and coaps+tcp
     * (RFC 7252 §6.1, §6.2; RFC 8323 §8.1, §8.2), 80 for coap+ws and 443 for coaps+ws (§8.3, §8.4).
     *
     * @throws IllegalArgumentException for another scheme
     */
    public static int defaultPort(String scheme) {
        switch (scheme) {
            case "coap":
            case "coap+tcp":
                return DEFAULT_PORT;
            case "coaps":
            case "coaps+tcp":
                return DEFAULT_SECURE_PORT;
            case "coap+ws":
                return 80;
            case "coaps+ws":
                return 443;
            default:
                throw new IllegalArgumentException("not a CoAP scheme: " + scheme + " (one of " + SCHEMES + ")");
        }
    }

    /**
     * Decomposes an absolute coap/coaps URI (RFC 7252 §6.4).
     *
     * @throws IllegalArgumentException naming the URI when it is not absolute, has another
     *     scheme, a fragment (§6.4 step 4), no host, or bad percent-encoding
     */
    public static CoapUri parse(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a valid URI: \"" + text + "\" (" + e.getReason() + ")", e);
        }
        if (!uri.isAbsolute()) {
            throw new IllegalArgumentException("not an absolute URI: \"" + text + "\"");
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (!SCHEMES.contains(scheme)) {
            throw new IllegalArgumentException("not a CoAP URI (" + String.join(", ", SCHEMES) + "): \"" + text + "\"");
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException("a CoAP URI must not have a fragment: \"" + text + "\"");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("CoAP URI without a host: \"" + text + "\"");
        }
        if (!host.startsWith("[")) {
            host = decode(host, text).toLowerCase(Locale.ROOT);
        }
        List<String> path = new ArrayList<>();
        String rawPath = uri.getRawPath();
        // §6.4 step 8: no Uri-Path for an empty path or "/"
        if (rawPath != null && !rawPath.isEmpty() && !rawPath.equals("/")) {
            for (String seg : rawPath.substring(1).split("/", -1)) {
                path.add(decode(seg, text));
            }
        }
        List<String> query = new ArrayList<>();
        String rawQuery = uri.getRawQuery();
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String arg : rawQuery.split("&", -1)) {
                query.add(decode(arg, text));
            }
        }
        return of(scheme, host, uri.getPort(), path, query);
    }

    /**
     * Composes the URI of a request from its options and destination (RFC 7252 §6.5).
     *
     * @param destination where the request goes (or came from); may be {@code null} when
     *     Uri-Host and Uri-Port are present
     * @throws IllegalStateException if neither Uri-Host nor {@code destination} names the host
     */
    public static CoapUri fromOptions(OptionSet options, InetSocketAddress destination, boolean secure) {
        String host = options.uriHost();
        if (host == null) {
            if (destination == null) {
                throw new IllegalStateException("no Uri-Host option and no destination to name the host");
            }
            InetAddress a = destination.getAddress();
            // scope IDs of link-local addresses are local to this host, so they are left out
            host = a == null ? destination.getHostString()
                    : a.getAddress().length == 16 ? ipv6Text(a.getAddress()) : a.getHostAddress();
        }
        int port = options.uriPort();
        if (port < 0) {
            port = destination != null ? destination.getPort() : -1;
        }
        return of(secure, host, port, options.uriPath(), options.uriQuery());
    }

    /** RFC 5952 text form: lower-case hex, the longest run of 2+ zero groups as "::". */
    static String ipv6Text(byte[] a) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = (a[2 * i] & 0xFF) << 8 | (a[2 * i + 1] & 0xFF);
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    /** Whether the scheme is a secure one ({@code coaps}, {@code coaps+tcp}, {@code coaps+ws}). */
    public boolean isSecure() {
        return secure;
    }

    /** The scheme, lower case: one of {@link #SCHEMES}. */
    public String scheme() {
        return scheme;
    }

    /** Whether the scheme is one of RFC 8323's (TCP, TLS, WebSockets) rather than UDP's or DTLS's. */
    public boolean isReliableTransport() {
        return scheme.indexOf('+') >= 0;
    }

    /** Host, percent-decoded, IPv6 without brackets. */
    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** Path segments, percent-decoded. */
    public List<String> path() {
        return path;
    }

    /** Query arguments, percent-decoded. */
    public List<String> query() {
        return query;
    }

    /** Whether the host is an IPv4 or IPv6 literal (then no Uri-Host is sent, §6.4 step 5). */
    public boolean isIpLiteral() {
        return host.indexOf(':') >= 0 || IPV4.matcher(host).matches();
    }

    /**
     * The destination: resolved for an IP literal (no DNS lookup), unresolved for a name.
     */
    public InetSocketAddress destination() {
        if (isIpLiteral()) {
            try {
                return new InetSocketAddress(InetAddress.getByName(host), port);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("bad IP literal \"" + host + "\"", e);
            }
        }
        return InetSocketAddress.createUnresolved(host, port);
    }

    /** The destination, resolving a host name by DNS (blocking). */
    public InetSocketAddress resolve() throws UnknownHostException {
        return new InetSocketAddress(InetAddress.getByName(host), port);
    }

    /**
     * Sets Uri-Host (only for a host name), Uri-Path and Uri-Query; Uri-Port is left out because
     * the destination port is the URI's port (§6.4 step 6).
     */
    public OptionSet.Builder applyTo(OptionSet.Builder options) {
        options.uriHost(isIpLiteral() ? null : host);
        options.remove(OptionNumber.URI_PORT);
        options.uriPath(path);
        options.uriQuery(query);
        return options;
    }

    /** The composed URI (RFC 7252 §6.5), the default port omitted, parts percent-encoded. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(scheme).append("://");
        if (host.indexOf(':') >= 0) {
            sb.append('[').append(host).append(']');
        } else {
            encode(sb, host, "");
        }
        if (port != defaultPort(scheme)) {
            sb.append(':').append(port);
        }
        if (path.isEmpty()) {
            sb.append('/');
        }
        for (String seg : path) {
            sb.append('/');
            encode(sb, seg, ":@");
        }
        for (int i = 0; i < query.size(); i++) {
            sb.append(i == 0 ? '?' : '&');
            // '&' separates arguments, so it is encoded inside one
            encode(sb, query.get(i), ":@/?");
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CoapUri)) {
            return false;
        }
        CoapUri u = (CoapUri) o;
        return u.scheme.equals(scheme) && u.port == port && u.host.equals(host) && u.path.equals(path)
                && u.query.equals(query);
    }

    @Override
    public int hashCode() {
        return Objects.hash(scheme, host, port, path, query);
    }

    private static final String UNRESERVED_AND_SUBDELIMS = "-._~!$'()*+,;=";

    private static void encode(StringBuilder sb, String s, String alsoAllowed) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xFF);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || (c < 128 && (UNRESERVED_AND_SUBDELIMS.indexOf(c) >= 0 || alsoAllowed.indexOf(c) >= 0));
            if (plain) {
                sb.append(c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >>> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
    }

    private static String decode(String s, String uri) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
                int lo = hi >= 0 ? Character.digit(s.charAt(i + 2), 16) : -1;
                if (lo < 0) {
                    throw new IllegalArgumentException("bad percent-encoding in \"" + uri + "\"");
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
