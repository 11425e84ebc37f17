package io.stagecoach.bench.scenario;

import java.time.Duration;

/** Flag-value parsing shared by the scenarios' option records; messages name the flag. */
final class Options {

    private Options() {
    }

    static String value(String[] args, int i, String name) {
        if (i >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[i];
    }

    static int integer(String[] args, int i, String name) {
        String v = value(args, i, name);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs an integer, got '" + v + "'", e);
        }
    }

    /** Seconds 0..86400, fractions allowed, as a Duration rounded to the millisecond. */
    static Duration seconds(String[] args, int i, String name) {
        String v = value(args, i, name);
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs seconds, got '" + v + "'", e);
        }
        if (!(d >= 0) || d > 86_400) {
            throw new IllegalArgumentException(name + " must be 0..86400 seconds, got " + v);
        }
        return Duration.ofMillis(Math.round(d * 1000));
    }
}
