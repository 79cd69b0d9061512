package io.drstudio.rocketmq.dr;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Brokers a producer keeps away from after a failed attempt (claim 3's "currently available"). The
 * time adapts: a broker that fails again right after its isolation ended is isolated twice as long,
 * up to a cap, and one success forgets its history. No probe: when the time is up the next send
 * tries it, which is the probe.
 *
 * <p>A refused connection is proof; a timeout is only a suspicion. A client JVM that stalls for a
 * moment (GC, a busy host) times out every request in flight, and the stock remoting client then
 * closes the socket under the rest, so one stall would send a room's traffic across rooms. A
 * timeout isolates only when confirmed: by an attempt that started at least {@code confirmMs}
 * after the first suspect one and failed too, or on a broker already isolated before.
 */
public final class BrokerIsolation {
    private record Strike(long until, int count) {
    }

    private final long baseMs;
    private final long maxMs;
    private final long confirmMs;
    private final LongSupplier clock;
    private final Map<String, Strike> strikes = new ConcurrentHashMap<>();
    /** Start of the earliest attempt that timed out since the broker last answered. */
    private final Map<String, Long> suspectSince = new ConcurrentHashMap<>();

    public BrokerIsolation(long baseMs, long maxMs, LongSupplier clock) {
        this(baseMs, maxMs, baseMs, clock);
    }

    /** @param confirmMs how much later a second timed-out attempt must have started to confirm a suspicion */
    public BrokerIsolation(long baseMs, long maxMs, long confirmMs, LongSupplier clock) {
        if (baseMs <= 0 || maxMs < baseMs) {
            throw new IllegalArgumentException("isolation times must satisfy 0 < base (" + baseMs
                + " ms) <= max (" + maxMs + " ms)");
        }
        this.baseMs = baseMs;
        this.maxMs = maxMs;
        this.confirmMs = confirmMs;
        this.clock = clock;
    }

    /**
     * A timed-out attempt on {@code broker} that started at {@code attemptStartedAt}: isolates it when
     * that confirms an earlier suspicion (or it was isolated before); returns for how long, 0 when
     * it is only suspected.
     */
    public long timedOut(String broker, long attemptStartedAt) {
        Strike s = strikes.get(broker);
        if (s != null && clock.getAsLong() - s.until() <= maxMs) return isolate(broker);
        // A suspicion from long ago (the broker was not used since) starts over.
        long since = suspectSince.merge(broker, attemptStartedAt,
            (old, fresh) -> fresh - old > 4 * confirmMs ? fresh : Math.min(old, fresh));
        if (attemptStartedAt - since < confirmMs) return 0;
        return isolate(broker);
    }

    /** Whether a timeout on {@code broker} is still unconfirmed (it may be retried). */
    public boolean isSuspected(String broker) {
        return suspectSince.containsKey(broker) && !strikes.containsKey(broker);
    }

    /** Isolates {@code broker} after a failed attempt; returns for how long (ms). */
    public long isolate(String broker) {
        long now = clock.getAsLong();
        Strike next = strikes.merge(broker, new Strike(now + baseMs, 1), (old, fresh) -> {
            // A failure while still isolated (an attempt started before) is the same strike.
            if (old.until() > now) return old;
            // Long healthy-looking since (nothing sent there, nothing failed): a fresh start.
            if (now - old.until() > maxMs) return fresh;
            int count = old.count() + 1;
            return new Strike(now + durationOf(count), count);
        });
        return next.until() - now;
    }

    /** A send succeeded on {@code broker}: it is healthy, and its history is forgotten. */
    public void succeeded(String broker) {
        strikes.remove(broker);
        suspectSince.remove(broker);
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
