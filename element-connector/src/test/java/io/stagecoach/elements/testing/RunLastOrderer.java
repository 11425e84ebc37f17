package io.stagecoach.elements.testing;

import java.util.Comparator;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Keeps the order JUnit would use but moves classes marked {@link RunLast} to the end. Set it with
 * {@code junit.jupiter.testclass.order.default} in {@code junit-platform.properties}.
 */
public final class RunLastOrderer implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        // List.sort is stable: every other class keeps its place relative to the rest.
        context.getClassDescriptors().sort(Comparator.comparingInt(d -> d.isAnnotated(RunLast.class) ? 1 : 0));
    }
}
