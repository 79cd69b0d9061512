package io.drstudio.javaworker;

/**
 * Epoch milliseconds with sub-millisecond fractions: the wall clock read once, then monotonic
 * nanoTime deltas, so a clock step during a run cannot reorder a worker's own timestamps.
 */
final class Clock {
    private static final long ANCHOR_MS = System.currentTimeMillis();
    private static final long ANCHOR_NS = System.nanoTime();

    private Clock() {
    }

    /** Now, in epoch ms, rounded to microseconds (keeps JSON short). */
    static double now() {
        double ms = ANCHOR_MS + (System.nanoTime() - ANCHOR_NS) / 1e6;
        return Math.round(ms * 1000.0) / 1000.0;
    }

    /** Parks the calling thread until epoch ms `at` (or returns at once if that has passed). */
    static void sleepUntil(double at) throws InterruptedException {
        double wait = at - now();
        if (wait <= 0) return;
        long ms = (long) wait;
        int ns = (int) ((wait - ms) * 1_000_000);
        Thread.sleep(ms, ns);
    }
}
