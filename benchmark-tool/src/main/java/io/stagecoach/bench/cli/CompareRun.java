package io.stagecoach.bench.cli;

/** {@code stagecoach bench compare}: placeholder until compare mode is built. */
final class CompareRun {

    private CompareRun() {
    }

    static int main(BenchOptions o, String command) {
        throw new IllegalArgumentException("compare mode is not built yet");
    }
}
