package io.drstudio.rocketmq.dr;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * A producer's request timeout, following its recent healthy latency: {@code factor} × the p99 of
 * the answers of the last {@code windowMs}, never below the configured request timeout (the floor:
 * what an idle host gets, and the least a hung broker costs) nor above the ceiling. A busy host's
 * slow but healthy answers are then waited for instead of being taken for a hung broker, which
 * would send a room's traffic to another room for nothing. Failed attempts are not samples: a hung
 * broker must not stretch the timeout that reveals it. The same rule as DR Studio's own client.
 */
final class RequestTimeout {
    static final long WINDOW_MS = 30_000;
    static final double FACTOR = 1.5;
    static final int MIN_SAMPLES = 20;
    static final long RECOMPUTE_MS = 1000;

    /** Told of a change worth a line in an audit log (see {@link #changed}). */
    interface ChangeListener {
        void changed(long timeoutMs, long previousMs, Double p99Ms, int samples);
    }

    private final long floorMs;
    private final long ceilingMs;
    private final ChangeListener listener;
    /** Answers in the window: when each came (epoch ms) and how long it took. */
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();
    private long current;
    private long computedAt = Long.MIN_VALUE / 2;

    RequestTimeout(long floorMs, long ceilingMs) {
        this(floorMs, ceilingMs, (timeoutMs, previousMs, p99Ms, samples) -> { });
    }

    RequestTimeout(long floorMs, long ceilingMs, ChangeListener listener) {
        if (floorMs <= 0 || ceilingMs < floorMs) {
            throw new IllegalArgumentException("request timeouts must satisfy 0 < requestTimeout (" + floorMs
                + " ms) <= maxRequestTimeout (" + ceilingMs + " ms)");
        }
        this.floorMs = floorMs;
        this.ceilingMs = ceilingMs;
        this.listener = listener;
        this.current = floorMs;
    }

    /** A healthy answer that took {@code ms}, received at {@code now}. */
    synchronized void record(long now, long ms) {
        samples.addLast(new long[] {now, ms});
    }

    /**
     * The timeout of a request started at {@code now}, recomputed at most once a second. The
     * listener hears of a change after the lock is released, on the sending thread.
     */
    long timeoutMs(long now) {
        long previous;
        long next;
        Double p99;
        int n;
        synchronized (this) {
            if (now - computedAt < RECOMPUTE_MS) return current;
            computedAt = now;
            while (!samples.isEmpty() && samples.peekFirst()[0] < now - WINDOW_MS) samples.removeFirst();
            long[] latencies = samples.stream().mapToLong(s -> s[1]).toArray();
            n = latencies.length;
            p99 = n < MIN_SAMPLES ? null : percentile(latencies, 0.99);
            previous = current;
            next = fromP99(p99, floorMs, ceilingMs);
            if (!changed(previous, next, floorMs)) return current;
            current = next;
        }
        listener.changed(next, previous, p99, n);
        return next;
    }

    /** A change worth telling: by a quarter or more, or to or from the floor (small drifts are not). */
    static boolean changed(long before, long after, long floorMs) {
        if (before == after) return false;
        if (before == floorMs || after == floorMs) return true;
        return Math.abs(after - before) >= before / 4.0;
    }

    /** The timeout for a window of healthy latencies: the floor with fewer than 20 of them. */
    static long fromLatencies(long[] latenciesMs, long floorMs, long ceilingMs) {
        return fromP99(latenciesMs.length < MIN_SAMPLES ? null : percentile(latenciesMs, 0.99), floorMs, ceilingMs);
    }

    /** The timeout for a window's p99 (null: too few answers, the floor). */
    static long fromP99(Double p99, long floorMs, long ceilingMs) {
        if (p99 == null) return floorMs;
        return Math.round(Math.min(ceilingMs, Math.max(floorMs, FACTOR * p99)));
    }

    /** Linear-interpolated quantile, as DR Studio's reports compute it. */
    static double percentile(long[] values, double q) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        double rank = q * (sorted.length - 1);
        int lo = (int) Math.floor(rank);
        int hi = (int) Math.ceil(rank);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
    }
}
