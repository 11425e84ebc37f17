package io.stagecoach.examples.cli;

import java.util.List;

/**
 * Walks a command line: {@code --name value}, {@code --name=value} and {@code -x value} forms; the
 * value of the current flag is taken with {@link #value()}, which fails with a usage message when
 * it is missing.
 */
final class ArgCursor {

    private final List<String> args;
    private int next;
    private String flag;
    private String inlineValue;

    ArgCursor(String[] args) {
        this.args = List.of(args);
    }

    boolean hasNext() {
        return next < args.size();
    }

    /** The next argument; for {@code --name=value} the {@code --name} part (the value is kept). */
    String nextFlag() {
        String a = args.get(next++);
        int eq = a.indexOf('=');
        if (a.startsWith("--") && eq > 2) {
            flag = a.substring(0, eq);
            inlineValue = a.substring(eq + 1);
        } else {
            flag = a;
            inlineValue = null;
        }
        return flag;
    }

    /** Whether the current flag carried {@code =value}; a flag without a value must not. */
    boolean hasInlineValue() {
        return inlineValue != null;
    }

    String value() throws UsageException {
        if (inlineValue != null) {
            String v = inlineValue;
            inlineValue = null;
            return v;
        }
        if (next >= args.size()) {
            throw new UsageException("option " + flag + " needs a value");
        }
        return args.get(next++);
    }

    int intValue(int min, int max) throws UsageException {
        String v = value();
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) {
                throw new UsageException("option " + flag + " must be " + min + ".." + max + ", got " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("option " + flag + " needs a number, got '" + v + "'");
        }
    }

    double decimalValue(double min) throws UsageException {
        String v = value();
        try {
            double d = Double.parseDouble(v.trim());
            if (!(d >= min) || Double.isInfinite(d)) {
                throw new UsageException("option " + flag + " must be a number >= " + min + ", got " + v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException("option " + flag + " needs a number, got '" + v + "'");
        }
    }
}
