package io.stagecoach.core.coap;

import static io.stagecoach.core.testutil.TestVectors.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BlockOptionTest {

    @Test
    void encodingLengthGrowsWithTheBlockNumber() {
        assertEquals("", hex(BlockOption.of(0, false, 0).encode()), "all zero is the empty uint");
        assertEquals("0a", hex(BlockOption.of(0, true, 2).encode()));
        assertEquals("011e", hex(BlockOption.of(17, true, 6).encode()), "num 17 needs 2 bytes");
        assertEquals("013880", hex(BlockOption.of(5000, false, 0).encode()), "num 5000 needs 3 bytes");
        assertEquals(3, BlockOption.of(BlockOption.MAX_NUM, true, 6).encode().length);
    }

    @Test
    void decodeInvertsEncode() {
        for (int num : new int[] {0, 1, 15, 16, 17, 4095, 4096, 5000, BlockOption.MAX_NUM}) {
            for (int szx = 0; szx <= 6; szx++) {
                BlockOption b = BlockOption.of(num, num % 2 == 0, szx);
                assertEquals(b, BlockOption.decode(b.encode()), b.toString());
            }
        }
    }

    @Test
    void sizeAndOffset() {
        BlockOption b = BlockOption.of(17, true, 6);
        assertEquals(1024, b.size());
        assertEquals(17 * 1024L, b.offset());
        assertTrue(b.more());
        assertEquals("17/M/1024", b.toString());
        assertEquals(2, BlockOption.szxOf(64));
        assertThrows(IllegalArgumentException.class, () -> BlockOption.szxOf(100));
    }

    @Test
    void invalidValuesAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BlockOption.of(0, false, 7));
        assertTrue(e.getMessage().contains("reserved"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BlockOption.of(1 << 20, false, 0));
        assertThrows(IllegalArgumentException.class, () -> BlockOption.of(-1, false, 0));
        assertThrows(IllegalArgumentException.class, () -> BlockOption.decode(new byte[] {0x07}), "szx 7");
        assertThrows(IllegalArgumentException.class, () -> BlockOption.decode(new byte[4]), "4 bytes");
        assertFalse(BlockOption.of(3, false, 1).more());
    }
}
