package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
    void tellsTheListenerOfChangesOfAQuarterOrMoreOnly() {
        List<String> told = new ArrayList<>();
        RequestTimeout t = new RequestTimeout(1000, 4000,
            (timeoutMs, previousMs, p99Ms, samples) -> told.add(previousMs + "->" + timeoutMs + " p99=" + p99Ms + " n=" + samples));
        for (int i = 0; i < 100; i++) t.record(100 + i, 1200);
        assertEquals(1800, t.timeoutMs(1000));
        // 1300 ms answers: 1950, within a quarter of 1800: no line, and the timeout stays put.
        for (int i = 0; i < 100; i++) t.record(1100 + i, 1300);
        assertEquals(1800, t.timeoutMs(2000));
        // 2000 ms answers push the p99 to 2000: 3000 is more than a quarter up.
        for (int i = 0; i < 100; i++) t.record(2100 + i, 2000);
        assertEquals(3000, t.timeoutMs(3000));
        // Every answer leaves the window: back to the floor, with no p99 to follow.
        assertEquals(1000, t.timeoutMs(40_000));
        assertEquals(List.of("1000->1800 p99=1200.0 n=100", "1800->3000 p99=2000.0 n=300", "3000->1000 p99=null n=0"), told);
    }

    @Test
    void aListenerThatThrowsDoesNotFailTheSend() {
        RoomAwareListener throwing = new RoomAwareListener() {
            @Override
            public void requestTimeoutChanged(long timeoutMs, long previousMs, Double p99Ms, int samples) {
                throw new IllegalStateException("the application's metrics are down");
            }
        };
        RequestTimeout t = new RequestTimeout(1000, 4000, new SafeListener(throwing)::requestTimeoutChanged);
        for (int i = 0; i < 100; i++) t.record(100 + i, 1200);
        assertEquals(1800, t.timeoutMs(1000));
    }

    @Test
    void refusesACeilingBelowTheFloor() {
        assertThrows(IllegalArgumentException.class, () -> new RequestTimeout(1000, 500));
        assertThrows(IllegalArgumentException.class, () -> new RequestTimeout(0, 500));
    }
}
