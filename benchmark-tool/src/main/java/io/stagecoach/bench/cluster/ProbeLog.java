package io.stagecoach.bench.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link FailoverProbe} printed, and what it says about one node's failure: which clients
 * the dead node served, how long each took to be answered by a survivor, what failed meanwhile.
 */
record ProbeLog(long start, List<Answer> answers, List<Failure> failures, long sent) {

    /** One answer: client, epoch millis, the node ID the payload named, round trip, retransmissions. */
    record Answer(int client, long at, int node, long rttMillis, int retransmissions) {
    }

    /** One request given up after MAX_RETRANSMIT retransmissions. */
    record Failure(int client, long at) {
    }

    /** Parses the probe's stdout; lines it does not know are skipped. */
    static ProbeLog parse(String output) {
        long start = 0;
        long sent = 0;
        List<Answer> answers = new ArrayList<>();
        List<Failure> failures = new ArrayList<>();
        for (String line : output.split("\n")) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "start" -> start = Long.parseLong(f[1]);
                case "answer" -> answers.add(new Answer(Integer.parseInt(f[1]), Long.parseLong(f[2]),
                        f[3].isEmpty() ? 0 : Integer.parseInt(f[3]), Long.parseLong(f[4]), Integer.parseInt(f[5])));
                case "failed" -> failures.add(new Failure(Integer.parseInt(f[1]), Long.parseLong(f[2])));
                case "end" -> sent = Long.parseLong(f[2]);
                default -> { }
            }
        }
        return new ProbeLog(start, List.copyOf(answers), List.copyOf(failures), sent);
    }

    /** Client → the node of its last answer before {@code millis} (clients never answered are absent). */
    Map<Integer, Integer> nodeBefore(long millis) {
        Map<Integer, Integer> last = new TreeMap<>();
        for (Answer a : answers) {
            if (a.at() < millis) {
                last.put(a.client(), a.node());
            }
        }
        return last;
    }

    /** Client → every node that answered it within [from, to). */
    Map<Integer, List<Integer>> nodesBetween(long from, long to) {
        Map<Integer, List<Integer>> seen = new TreeMap<>();
        for (Answer a : answers) {
            if (a.at() >= from && a.at() < to) {
                List<Integer> nodes = seen.computeIfAbsent(a.client(), c -> new ArrayList<>());
                if (!nodes.contains(a.node())) {
                    nodes.add(a.node());
                }
            }
        }
        return seen;
    }

    /** The first answer to {@code client} at or after {@code millis} from a node other than {@code not}, or null. */
    Answer firstAnswerAfter(int client, long millis, int not) {
        for (Answer a : answers) {
            if (a.client() == client && a.at() >= millis && a.node() != not) {
                return a;
            }
        }
        return null;
    }

    /** Requests given up at or after {@code millis}. */
    long failuresAfter(long millis) {
        return failures.stream().filter(f -> f.at() >= millis).count();
    }
}
