package io.stagecoach.core;

import io.stagecoach.elements.testing.NoThreadLeftBehind;
import io.stagecoach.elements.testing.RunLast;
import org.junit.jupiter.api.Test;

/** Runs after every other class of core's suite: none of them left a {@code stagecoach-} thread behind. */
@RunLast
class NoThreadLeftBehindTest {

    @Test
    void noTestClassLeftAThread() {
        NoThreadLeftBehind.assertNoLeaks();
    }
}
