package consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RoundTripTest {

    @Test
    void serverAndClientFromThePublishedArtifacts() {
        assertEquals("2.05 Content hello consumer", RoundTrip.run());
    }
}
