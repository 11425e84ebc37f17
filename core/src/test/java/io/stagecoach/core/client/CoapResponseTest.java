package io.stagecoach.core.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.CoapUri;
import io.stagecoach.core.coap.Response;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link CoapResponse#location()} against a server that puts URI syntax into Location-Path and
 * Location-Query values (RFC 7252 §5.10.7: "any character sequence", no percent-encoding), and
 * {@link CoapResponse#toString()} against one that puts line breaks into its payload.
 */
class CoapResponseTest {

    private static CoapResponse created(List<String> path, List<String> query) {
        Response.Builder b = Response.builder(Code.CREATED);
        b.options().locationPath(path).locationQuery(query);
        return new CoapResponse(b.build(), Duration.ZERO);
    }

    /** Ordinary values read as before. */
    @Test
    void ordinaryLocationsAreUnchanged() {
        assertEquals("/items/7?v=1", created(List.of("items", "7"), List.of("v=1")).location());
        assertEquals("/a-b._~!$'()*+,;=/c", created(List.of("a-b._~!$'()*+,;=", "c"), List.of()).location());
        assertEquals("/?first=1&second=2", created(List.of(), List.of("first=1", "second=2")).location(),
                "no Location-Path: the path is / (§5.10.7)");
        assertEquals("", created(List.of(), List.of()).location());
    }

    /** A '/' or '?' inside one segment cannot add a segment or start the query. */
    @Test
    void delimitersInsideAValueArePercentEncoded() {
        assertEquals("/a%2Fb%3Fc%23d%25e%26f%3Ag%40h", created(List.of("a/b?c#d%e&f:g@h"), List.of()).location());
        assertEquals("/x?a%26admin=true&b%3Fc%2Fd", created(List.of("x"), List.of("a&admin=true", "b?c/d")).location());
    }

    /** Controls, spaces and non-ASCII become percent-encoded UTF-8: nothing for a terminal to act on. */
    @Test
    void controlsSpacesAndNonAsciiArePercentEncoded() {
        assertEquals("/%0D%0A%1B%5B2J%20%C3%A9%7F", created(List.of("\r\n\u001b[2J é\u007f"), List.of()).location());
    }

    /** "." and ".." (forbidden by §5.10.7) cannot climb the path when the location is resolved. */
    @Test
    void dotSegmentsAreEncoded() {
        assertEquals("/%2E%2E/%2E%2E/admin/%2E", created(List.of("..", "..", "admin", "."), List.of()).location());
        assertEquals("/...", created(List.of("..."), List.of()).location(), "only the exact dot segments");
    }

    /**
     * The round trip: parsing the location back gives exactly the options' values, however hostile.
     */
    @Test
    void parsingTheLocationGivesBackTheValues() {
        List<String> path = List.of("a/b", "?", "%41", "..", "é €", "x&y", "");
        List<String> query = List.of("k=v&w", "?#/", "%");
        CoapUri uri = CoapUri.parse("coap://example.org" + created(path, query).location());
        assertEquals(path, uri.path());
        assertEquals(query, uri.query());
    }

    /** toString() escapes the payload: logging a response cannot forge a line. */
    @Test
    void toStringEscapesThePayload() {
        CoapResponse r = new CoapResponse(Response.builder(Code.CONTENT).payload("ok\nINFO forged\u001b[2J").build(), Duration.ZERO);
        assertEquals("2.05 " + Code.CONTENT.name() + " \"ok\\x0aINFO forged\\x1b[2J\"", r.toString());
        assertTrue(r.toString().chars().allMatch(c -> c >= 0x20 && c < 0x7F));
    }
}
