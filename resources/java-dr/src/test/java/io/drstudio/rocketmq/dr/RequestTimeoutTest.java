package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RequestTimeoutTest {
    private static long[] fill(int n, long ms) {
        long[] a = new long[n];
        Arrays.fill(a, ms);
        return a;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void theFloorUntilThereAreEnoughAnswersOrWhileTheyAreFast() {
        assertEquals(1000, RequestTimeout.fromLatencies(fill(19, 5000), 1000, 4000));
        assertEquals(1000, RequestTimeout.fromLatencies(fill(500, 7), 1000, 4000));
    }

    @Test
    void oneAndAHalfTimesTheP99OnABusyHostUpToTheCeiling() {
        // Healthy answers of a loaded host: p50 7 ms, p99 900 ms; a 1.1 s answer is waited for.
        long[] loaded = concat(fill(980, 7), fill(20, 900));
        long t = RequestTimeout.fromLatencies(loaded, 1000, 4000);
        assertEquals(1350, t);
        assertTrue(t > 1100);
        assertEquals(4000, RequestTimeout.fromLatencies(fill(100, 9000), 1000, 4000));
        // Ceiling = floor: a fixed timeout, as before.
        assertEquals(1000, RequestTimeout.fromLatencies(fill(100, 9000), 1000, 1000));
        // The slowest 1 % does not count: one freak stall stretches nothing.
        assertEquals(1000, RequestTimeout.fromLatencies(concat(fill(999, 10), fill(1, 30_000)), 1000, 4000));
    }

    @Test
    void followsTheWindowRecomputedOnceASecond() {
        RequestTimeout t = new RequestTimeout(1000, 4000);
        assertEquals(1000, t.timeoutMs(0));
        for (int i = 0; i < 100; i++) t.record(100 + i, 1200);
        assertEquals(1000, t.timeoutMs(500));
        assertEquals(1800, t.timeoutMs(1000));
        // The slow answers leave the window 30 s later: back to the floor.
        for (int i = 0; i < 50; i++) t.record(31_000 + i, 5);
        assertEquals(1000, t.timeoutMs(31_200));
    }

    @Test
    void refusesACeilingBelowTheFloor() {
        assertThrows(IllegalArgumentException.class, () -> new RequestTimeout(1000, 500));
        assertThrows(IllegalArgumentException.class, () -> new RequestTimeout(0, 500));
    }
}
