package io.stagecoach.bench.ccsim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON shape of the cc-sim report and the figure, from two tiny runs. */
class ReportsTest {

    private static List<RunSummary> runs() {
        Scenario s = Scenario.paper(Strategy.DEFAULT, Workload.CONTINUOUS, 2, 2500).withExchanges(3);
        return List.of(RunSummary.of(s, List.of(Replication.run(s, 1), Replication.run(s, 2))),
                RunSummary.of(s.withStrategy(Strategy.COCOA_FB1), List.of(Replication.run(s.withStrategy(Strategy.COCOA_FB1), 1))));
    }

    @Test
    void jsonHasOneRunObjectPerCellWithTheIssueFields() {
        String json = JsonReport.render(runs());
        assertTrue(json.startsWith("{\"runs\": ["), json);
        assertTrue(json.contains("{\"cc\": \"default\", \"workload\": \"continuous\", \"clients\": 2, \"buffer\": 2500,"
                + " \"replications\": 2, \"fct_s\": {\"min\": "), json);
        assertTrue(json.contains("\"cc\": \"cocoa-fb1\""), json);
        for (String key : new String[] {"\"p10\"", "\"p25\"", "\"median\"", "\"p75\"", "\"p90\"", "\"max\"",
                "\"unnecessary_retransmissions_per_client\": {\"median\": ", "\"mean\"",
                "\"transmissions_histogram\": [12, 0, 0, 0, 0, 0, 0, 0]"}) {
            assertTrue(json.contains(key), key + " missing in " + json);
        }
        assertEquals(2, json.split("\"cc\"").length - 1, json);
    }

    @Test
    void figureIsAnSvgWithOneBoxPerRun() {
        String svg = Figure4Svg.render(runs());
        assertTrue(svg.startsWith("<svg"), svg);
        assertTrue(svg.trim().endsWith("</svg>"), svg);
        assertEquals(2, svg.split("<rect x=").length - 1 - 6, "two boxes plus six legend squares");
        assertTrue(HtmlReport.render(runs(), "--clients 2").contains(svg));
    }

    @Test
    void niceCeilingRoundsUpTo125() {
        assertEquals(200, Figure4Svg.niceCeiling(196));
        assertEquals(5, Figure4Svg.niceCeiling(4.2));
        assertEquals(1, Figure4Svg.niceCeiling(0));
    }
}
