package io.drstudio.javaworker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WarmupWindowTest {
    @Test
    void warmOnceFullOfCleanFastSendsNotBefore() {
        Warmup.Window w = new Warmup.Window(10, 100);
        for (int i = 0; i < 9; i++) assertFalse(w.add(true, 10));
        assertTrue(w.add(true, 10));
    }

    @Test
    void aTenthMayBeSlowButNoMore() {
        Warmup.Window w = new Warmup.Window(10, 100);
        w.add(true, 500);
        for (int i = 0; i < 4; i++) w.add(true, 10);
        w.add(true, 500);
        for (int i = 0; i < 3; i++) w.add(true, 10);
        assertFalse(w.add(true, 10));
        assertTrue(w.add(true, 10));
    }

    @Test
    void aFailedSendMustLeaveTheWindow() {
        Warmup.Window w = new Warmup.Window(10, 100);
        w.add(false, 10);
        for (int i = 0; i < 8; i++) w.add(true, 10);
        assertFalse(w.add(true, 10));
        assertTrue(w.add(true, 10));
    }
}
