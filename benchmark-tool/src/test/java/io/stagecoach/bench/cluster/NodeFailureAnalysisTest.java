package io.stagecoach.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@link NodeFailure} makes of a probe's log: recovery times of the dead node's clients,
 * whether they came over a new session, and survivors' clients that moved or handshook again.
 * Made-up logs; no cluster.
 */
class NodeFailureAnalysisTest {

    private static ProbeLog log(String... lines) {
        return ProbeLog.parse(String.join("\n", lines));
    }

    @Test
    void deadNodesClientsRecoverOverNewSessionsAndSurvivorsStay() {
        ProbeLog log = log(
                "start 0",
                "answer 0 900 2 5 1", // client 0 on node 2 (the victim)
                "answer 1 950 1 5 1", // client 1 on node 1
                "answer 2 990 2 5 1", // client 2 on node 2
                "answer 3 999 3 5 1", // client 3 on node 3
                "answer 1 1200 1 5 1",
                "answer 3 1300 3 5 2", // a survivor's client that handshook again
                "failed 2 5000",
                "answer 0 7000 3 6000 2",
                "answer 2 8000 1 100 2",
                "end 9000 12 8 1");
        NodeFailure.Recovery r = NodeFailure.recovery(log, 2, 1000, 1100);
        assertEquals(Map.of(1, 1, 2, 2, 3, 1), r.clientsPerNode());
        assertEquals(List.of(6000L, 7000L), r.recoveries());
        assertEquals(7000, r.everyClientAgain());
        assertEquals(2, r.victimClientsNewSession());
        assertEquals(1, r.survivorsNewSession());
        assertEquals(0, r.survivorsMoved());
        assertEquals(1, r.failedAfterKill());
        assertEquals(0, r.answersFromVictimAfterUpdate());
        assertEquals(12, r.sent());
        assertEquals(7000, r.percentile(100));
        assertEquals(6000, r.percentile(50));
    }

    @Test
    void aSurvivorsClientThatChangesNodeAndAnAnswerFromTheDeadNodeAreCounted() {
        ProbeLog log = log(
                "answer 0 900 1 5 1",
                "answer 1 900 2 5 1",
                "answer 1 1050 2 5 1", // the victim still answered before the balancer update
                "answer 1 1500 2 5 1", // and after it: counted
                "answer 0 2000 3 5 1", // client 0 moved from node 1 to node 3
                "answer 1 3000 1 5 1");
        NodeFailure.Recovery r = NodeFailure.recovery(log, 2, 1000, 1100);
        assertEquals(1, r.survivorsMoved());
        assertEquals(1, r.answersFromVictimAfterUpdate());
        assertEquals(List.of(2000L), r.recoveries());
        assertEquals(0, r.victimClientsNewSession(), "answered over the old session count");
    }

    @Test
    void busiestNodeIsTheOneWithTheMostClientsLowestIdOnATie() {
        assertEquals(3, NodeFailure.busiest(log("answer 0 1 3 1 1", "answer 1 1 3 1 1", "answer 2 1 1 1 1")));
        assertEquals(1, NodeFailure.busiest(log("answer 0 1 3 1 1", "answer 1 1 1 1 1")));
        assertEquals(2, NodeFailure.busiest(log("answer 0 1 1 1 1", "answer 0 2 2 1 1", "answer 1 1 2 1 1")),
                "a client counts for the node of its last answer");
    }
}
