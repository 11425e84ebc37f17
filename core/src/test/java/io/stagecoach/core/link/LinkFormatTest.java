package io.stagecoach.core.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LinkFormatTest {

    private static WebLink link(String target, Object... nameValues) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            @SuppressWarnings("unchecked")
            List<String> v = (List<String>) nameValues[i + 1];
            m.put((String) nameValues[i], v);
        }
        return new WebLink(target, m);
    }

    @Test
    void quotingFollowsRfc6690() {
        WebLink l = link("/s", "rt", List.of("temp"), "if", List.of("sensor", "core.s"), "ct", List.of("0"),
                "sz", List.of("1280"), "obs", List.of(), "title", List.of("He said \"hi\" \\o/"),
                "ext", List.of("a b"), "ct2", List.of("x;y"));
        assertEquals("</s>;rt=\"temp\";if=\"sensor core.s\";ct=0;sz=1280;obs;title=\"He said \\\"hi\\\" \\\\o/\""
                + ";ext=\"a b\";ct2=\"x;y\"", LinkFormat.serialize(List.of(l)));
        assertEquals("</a>;ct=\"0 41\",</b>", LinkFormat.serialize(List.of(link("/a", "ct", List.of("0", "41")),
                link("/b"))));
    }

    @Test
    void parseRoundTripsSerializedLinks() {
        List<WebLink> links = List.of(
                link("/s", "rt", List.of("temp", "t2"), "obs", List.of(), "title", List.of("a, \"b\"; c")),
                link("/m", "ct", List.of("0", "41", "50", "60"), "sz", List.of("1280")),
                link("coap://[::1]/x", "anchor", List.of("/y")));
        String text = LinkFormat.serialize(links);
        assertEquals(links, LinkFormat.parse(text), text);
    }

    @Test
    void parseAcceptsRfc6690Example() {
        // RFC 6690 §5 example, with line breaks and unquoted values
        String text = "</sensors/temp>;rt=\"temperature-c\";if=\"sensor\",\n"
                + " </sensors/light>;rt=\"light-lux\";if=\"sensor\";ct=41 ;obs";
        List<WebLink> links = LinkFormat.parse(text);
        assertEquals(2, links.size());
        assertEquals("/sensors/light", links.get(1).target());
        assertEquals(List.of("light-lux"), links.get(1).values("rt"));
        assertEquals("41", links.get(1).value("ct"));
        assertTrue(links.get(1).has("obs"));
        assertEquals(List.of(), LinkFormat.parse("  "), "empty document");
    }

    @Test
    void repeatedAttributeAppends() {
        WebLink l = LinkFormat.parse("</a>;rt=x;rt=\"y z\"").get(0);
        assertEquals(List.of("x", "y", "z"), l.values("rt"));
    }

    @Test
    void malformedTextIsAClearError() {
        for (String bad : List.of("/a>", "</a", "</a>;", "</a>;title=\"open", "</a> </b>", "</a>;=x")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LinkFormat.parse(bad),
                    "parse(" + bad + ")");
            assertTrue(e.getMessage().startsWith("link-format: "), e.getMessage());
        }
    }

    @Test
    void attributeNamesAreValidated() {
        LinkAttributes a = new LinkAttributes();
        assertThrows(IllegalArgumentException.class, () -> a.set("bad name", "x"));
        assertThrows(IllegalArgumentException.class, () -> a.set("", "x"));
        a.set("rt", "x").add("rt", "y").set("obs");
        assertEquals(List.of("x", "y"), a.values("rt"));
        assertTrue(a.has("obs"));
        a.remove("obs");
        assertEquals(Map.of("rt", List.of("x", "y")), a.asMap());
    }
}
