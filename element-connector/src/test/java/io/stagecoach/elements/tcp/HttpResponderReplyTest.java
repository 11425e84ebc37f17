package io.stagecoach.elements.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpResponderReplyTest {

    private static final byte[] BODY = new byte[0];

    @Test
    void headersAreCopied() {
        Map<String, String> headers = new HashMap<>(Map.of("Cache-Control", "no-cache"));
        HttpResponder.Reply reply = new HttpResponder.Reply(200, "text/plain", BODY, headers);
        headers.put("X-Later", "1");
        assertEquals(Map.of("Cache-Control", "no-cache"), reply.headers());
        assertEquals(Map.of(), HttpResponder.Reply.ok("text/plain", BODY).headers());
    }

    @Test
    void aValueThatWouldSplitTheResponseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new HttpResponder.Reply(200, "text/plain", BODY,
                Map.of("X-A", "ok\r\nSet-Cookie: x=1")));
        assertThrows(IllegalArgumentException.class, () -> new HttpResponder.Reply(200, "text/plain\n", BODY));
        assertThrows(IllegalArgumentException.class, () -> new HttpResponder.Reply(200, "text/plain", BODY,
                Map.of("X-A", "caf\u00e9")));
    }

    @Test
    void namesMustBeTokensAndNotThoseTheConnectorWrites() {
        assertThrows(IllegalArgumentException.class, () -> new HttpResponder.Reply(200, "text/plain", BODY,
                Map.of("Bad Name", "1")));
        assertThrows(IllegalArgumentException.class, () -> new HttpResponder.Reply(200, "text/plain", BODY,
                Map.of("", "1")));
        for (String reserved : new String[] {"Content-Length", "content-type", "Connection", "Transfer-Encoding"}) {
            assertThrows(IllegalArgumentException.class, () -> new HttpResponder.Reply(200, "text/plain", BODY,
                    Map.of(reserved, "1")), reserved);
        }
    }

    @Test
    void theStatusMustBeAnHttpStatus() {
        assertThrows(IllegalArgumentException.class, () -> new HttpResponder.Reply(99, "text/plain", BODY));
        assertThrows(IllegalArgumentException.class, () -> new HttpResponder.Reply(600, "text/plain", BODY));
        assertEquals(404, new HttpResponder.Reply(404, "text/plain", BODY).status());
    }
}
