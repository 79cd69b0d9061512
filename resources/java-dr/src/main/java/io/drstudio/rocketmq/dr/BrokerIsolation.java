package io.drstudio.rocketmq.dr;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Brokers a producer keeps away from after a failed attempt (claim 3's "currently available"). The
 * time adapts: a broker that fails again right after its isolation ended is isolated twice as long,
 * up to a cap, and one success forgets its history. No probe: when the time is up the next send
 * tries it, which is the probe.
 */
public final class BrokerIsolation {
    private record Strike(long until, int count) {
    }

    private final long baseMs;
    private final long maxMs;
    private final LongSupplier clock;
    private final Map<String, Strike> strikes = new ConcurrentHashMap<>();

    public BrokerIsolation(long baseMs, long maxMs, LongSupplier clock) {
        if (baseMs <= 0 || maxMs < baseMs) {
            throw new IllegalArgumentException("isolation times must satisfy 0 < base (" + baseMs
                + " ms) <= max (" + maxMs + " ms)");
        }
        this.baseMs = baseMs;
        this.maxMs = maxMs;
        this.clock = clock;
    }

    /** Isolates {@code broker} after a failed attempt; returns for how long (ms). */
    public long isolate(String broker) {
        long now = clock.getAsLong();
        Strike next = strikes.merge(broker, new Strike(now + baseMs, 1), (old, fresh) -> {
            // A failure while still isolated (an attempt started before) is the same strike.
            if (old.until() > now) return old;
            int count = old.count() + 1;
            return new Strike(now + durationOf(count), count);
        });
        return next.until() - now;
    }

    /** A send succeeded on {@code broker}: it is healthy, and its history is forgotten. */
    public void succeeded(String broker) {
        strikes.remove(broker);
    }

    public boolean isIsolated(String broker) {
        Strike s = strikes.get(broker);
        return s != null && s.until() > clock.getAsLong();
    }

    /** When the isolation of {@code broker} ends (epoch ms), or 0 when it is not isolated. */
    public long isolatedUntil(String broker) {
        Strike s = strikes.get(broker);
        return s == null ? 0 : s.until();
    }

    long durationOf(int count) {
        long d = baseMs;
        for (int i = 1; i < count && d < maxMs; i++) d *= 2;
        return Math.min(d, maxMs);
    }
}
