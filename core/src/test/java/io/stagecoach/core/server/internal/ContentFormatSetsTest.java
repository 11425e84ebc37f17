package io.stagecoach.core.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.stagecoach.core.coap.OptionSet;
import org.junit.jupiter.api.Test;

class ContentFormatSetsTest {

    @Test
    void cachedFormatsAreSharedAndEqualToABuiltSet() {
        for (int format : new int[] {0, 40, 50, 60, ContentFormatSets.CACHED - 1}) {
            OptionSet set = ContentFormatSets.only(format);
            assertEquals(OptionSet.builder().contentFormat(format).build(), set, "set for format " + format);
            assertEquals(1, set.size(), "only Content-Format in the set for " + format);
            assertSame(set, ContentFormatSets.only(format), "format " + format + " is built once");
        }
    }

    @Test
    void otherFormatsAreBuiltAndBadOnesRefusedAsByTheBuilder() {
        assertEquals(11050, ContentFormatSets.only(11050).contentFormat());
        assertEquals(65535, ContentFormatSets.only(65535).contentFormat());
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> ContentFormatSets.only(-1));
        assertEquals("Content-Format value must not be negative, got -1", negative.getMessage());
        IllegalArgumentException tooBig = assertThrows(IllegalArgumentException.class, () -> ContentFormatSets.only(65536));
        assertEquals("Content-Format value 65536 needs 3 bytes and exceeds the maximum length 2", tooBig.getMessage());
    }

    @Test
    void addingToASharedSetLeavesItAlone() {
        OptionSet shared = ContentFormatSets.only(0);
        OptionSet withObserve = shared.newBuilder().observe(5).build();
        assertEquals(5, withObserve.observe());
        assertEquals(-1, ContentFormatSets.only(0).observe(), "the shared set did not get the Observe");
        assertEquals(1, ContentFormatSets.only(0).size());
    }
}
