package io.stagecoach.bench.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StepsTest {

    @Test
    void listIsKeptInTheGivenOrder() {
        assertEquals(List.of(10, 100, 1000), Steps.parse("10,100,1000"));
        assertEquals(List.of(50, 5), Steps.parse(" 50 , 5 "));
    }

    @Test
    void rangeWithoutFactorMultipliesByTenLikeThePapers() {
        assertEquals(List.of(10, 100, 1000, 10000), Steps.parse("10:10000"));
    }

    @Test
    void rangeEndsWithItsUpperBoundEvenWhenTheFactorOvershoots() {
        assertEquals(List.of(10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10000), Steps.parse("10:10000:x2"));
        assertEquals(List.of(3, 30, 50), Steps.parse("3:50"));
    }

    @Test
    void linearRangeAddsTheStep() {
        assertEquals(List.of(10, 60, 110, 160, 200), Steps.parse("10:200:+50"));
    }

    @Test
    void singleLevelRange() {
        assertEquals(List.of(7), Steps.parse("7:7"));
    }

    @Test
    void badInputIsRejectedWithTheOffendingPart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Steps.parse("10,abc"));
        assertTrue(e.getMessage().contains("abc"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Steps.parse("0,10"));
        assertThrows(IllegalArgumentException.class, () -> Steps.parse("100:10"));
        assertThrows(IllegalArgumentException.class, () -> Steps.parse("10:100:x1"));
        assertThrows(IllegalArgumentException.class, () -> Steps.parse("10:100:y2"));
        assertThrows(IllegalArgumentException.class, () -> Steps.parse(""));
        assertThrows(IllegalArgumentException.class, () -> Steps.parse("1:100000:+1"));
    }

    @Test
    void splitSpreadsClientsEvenlyOverSlaves() {
        assertArrayEquals(new int[] {4, 3, 3}, Steps.split(10, 3));
        assertArrayEquals(new int[] {1, 1, 0}, Steps.split(2, 3));
        assertEquals(10_001, java.util.Arrays.stream(Steps.split(10_001, 7)).sum());
    }
}
