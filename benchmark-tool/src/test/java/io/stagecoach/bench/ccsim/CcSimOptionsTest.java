package io.stagecoach.bench.ccsim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CcSimOptionsTest {

    @Test
    void listsExpandToTheGridInReportOrder() {
        CcSimOptions o = CcSimOptions.parse("--clients", "10,400", "--buffer", "2500,1410000", "--workload",
                "random", "--cc", "default,cocoa-fb2", "--replications", "3", "--json", "out.json");
        List<Scenario> grid = o.scenarios();
        assertEquals(8, grid.size(), "2 clients x 2 buffers x 1 workload x 2 strategies");
        assertEquals(Strategy.COCOA_FB2, grid.get(1).strategy());
        assertEquals(2500, grid.get(1).bufferBytes());
        assertEquals(400, grid.get(7).clients());
        assertEquals(3, o.replications());
        assertEquals("out.json", o.json().toString());
    }

    @Test
    void badInputIsRejectedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CcSimOptions.parse("--cc", "reno"));
        assertTrue(e.getMessage().contains("default, cocoa, default-fb1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CcSimOptions.parse("--clients", "0"));
        assertThrows(IllegalArgumentException.class, () -> CcSimOptions.parse("--clients"));
        assertThrows(IllegalArgumentException.class, () -> CcSimOptions.parse("--workload", "bursty"));
        assertThrows(IllegalArgumentException.class, () -> CcSimOptions.parse("--frobnicate", "1"));
    }
}
