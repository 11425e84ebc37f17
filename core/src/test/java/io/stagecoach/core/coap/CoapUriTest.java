package io.stagecoach.core.coap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class CoapUriTest {

    @Test
    void decomposesHostPortPathAndQuery() {
        CoapUri u = CoapUri.parse("coap://Example.COM:61616/sensors/temp?unit=C&x");
        assertEquals("example.com", u.host());
        assertEquals(61616, u.port());
        assertEquals(List.of("sensors", "temp"), u.path());
        assertEquals(List.of("unit=C", "x"), u.query());
        assertFalse(u.isIpLiteral());
        InetSocketAddress d = u.destination();
        assertTrue(d.isUnresolved(), "names are resolved only on demand");
        assertEquals(61616, d.getPort());
    }

    @Test
    void defaultPortsPerScheme() {
        assertEquals(5683, CoapUri.parse("coap://h/").port());
        assertEquals(5684, CoapUri.parse("coaps://h").port());
        assertTrue(CoapUri.parse("coaps://h").isSecure());
    }

    @Test
    void ipv6LiteralIsTheDestinationAndNeedsNoUriHost() {
        CoapUri u = CoapUri.parse("coap://[::1]:5683/x");
        assertEquals("::1", u.host());
        assertTrue(u.isIpLiteral());
        assertEquals(new InetSocketAddress("::1", 5683), u.destination());
        OptionSet opts = u.applyTo(OptionSet.builder()).build();
        assertNull(opts.uriHost(), "Uri-Host omitted for an IP literal (RFC 7252 6.4 step 5)");
        assertFalse(opts.has(OptionNumber.URI_PORT), "the destination port is the URI's port");
        assertEquals(List.of("x"), opts.uriPath());
    }

    @Test
    void hostNameGoesIntoUriHost() {
        OptionSet opts = CoapUri.parse("coap://example.org:1234/a").applyTo(OptionSet.builder()).build();
        assertEquals("example.org", opts.uriHost());
        assertFalse(opts.has(OptionNumber.URI_PORT));
    }

    @Test
    void percentDecodingOfSegmentsAndArguments() {
        CoapUri u = CoapUri.parse("coap://h/a%2Fb/%C3%A4/%20?x%26y=1%3D2");
        assertEquals(List.of("a/b", "ä", " "), u.path(), "%2F stays inside one segment");
        assertEquals(List.of("x&y=1=2"), u.query());
    }

    @Test
    void emptyPathAndTrailingSlash() {
        assertEquals(List.of(), CoapUri.parse("coap://h").path());
        assertEquals(List.of(), CoapUri.parse("coap://h/").path());
        assertEquals(List.of("a", ""), CoapUri.parse("coap://h/a/").path());
    }

    @Test
    void compositionPercentEncodesAndOmitsTheDefaultPort() {
        CoapUri u = CoapUri.of(false, "example.org", 5683, List.of("a/b", "ä", "x y"), List.of("k&v=1", "p"));
        assertEquals("coap://example.org/a%2Fb/%C3%A4/x%20y?k%26v=1&p", u.toString());
        assertEquals(u, CoapUri.parse(u.toString()), "composition and decomposition are inverse");
        assertEquals("coaps://[fe80::1]:5683/", CoapUri.of(true, "fe80::1", 5683, List.of(), List.of()).toString());
        assertEquals("coap://10.0.0.1:1234/s", CoapUri.of(false, "10.0.0.1", 1234, List.of("s"), List.of()).toString());
    }

    @Test
    void composesFromOptionsAndDestination() {
        OptionSet opts = OptionSet.builder().uriPath("x/y").addUriQuery("q=1").build();
        assertEquals("coap://[::1]:9999/x/y?q=1",
                CoapUri.fromOptions(opts, new InetSocketAddress("::1", 9999), false).toString());
        OptionSet withHost = opts.newBuilder().uriHost("example.net").build();
        assertEquals("coap://example.net/x/y?q=1",
                CoapUri.fromOptions(withHost, new InetSocketAddress("127.0.0.1", 5683), false).toString());
        assertThrows(IllegalStateException.class, () -> CoapUri.fromOptions(opts, null, false));
    }

    @Test
    void ipv6TextIsCompressed() {
        assertEquals("::1", CoapUri.ipv6Text(new InetSocketAddress("::1", 1).getAddress().getAddress()));
        assertEquals("::", CoapUri.ipv6Text(new byte[16]));
        assertEquals("2001:db8::1:0:0:1",
                CoapUri.ipv6Text(new InetSocketAddress("2001:db8:0:0:1:0:0:1", 1).getAddress().getAddress()));
        assertEquals("fe80::a:1", CoapUri.ipv6Text(new InetSocketAddress("fe80::a:1", 1).getAddress().getAddress()));
        assertEquals("1:2:3:4:5:6:7:8",
                CoapUri.ipv6Text(new InetSocketAddress("1:2:3:4:5:6:7:8", 1).getAddress().getAddress()));
    }

    @Test
    void requestBuilderUsesTheUri() {
        Request r = Request.get().uri("coap://127.0.0.1:61616/.well-known/core?rt=x").build();
        assertEquals(new InetSocketAddress("127.0.0.1", 61616), r.peer().peer());
        assertEquals(List.of(".well-known", "core"), r.options().uriPath());
        assertEquals("coap://127.0.0.1:61616/.well-known/core?rt=x", r.uri(false));
    }

    @Test
    void badUrisAreRefusedNamingTheUri() {
        String[] bad = {"/relative/path", "http://h/x", "coap://h/x#frag", "coap:///nohost", "coap://h/%zz",
            "coap://h/%4", "coap://h x/"};
        for (String s : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CoapUri.parse(s), s);
            assertTrue(e.getMessage().contains(s), "message names the URI: " + e.getMessage());
        }
    }
}
