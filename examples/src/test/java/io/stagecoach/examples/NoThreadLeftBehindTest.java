package io.stagecoach.examples;

import io.stagecoach.elements.testing.NoThreadLeftBehind;
import io.stagecoach.elements.testing.RunLast;
import org.junit.jupiter.api.Test;

/** Runs after every other class of the examples suite: none of them left a {@code stagecoach-} thread behind. */
@RunLast
class NoThreadLeftBehindTest {

    @Test
    void noTestClassLeftAThread() {
        NoThreadLeftBehind.assertNoLeaks();
    }
}
