package io.drstudio.rocketmq.dr;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;

/**
 * Keys whose last ordered send ended without an answer, for {@link RoomOrderSelector.Policy#WAIT}.
 * A 5.x broker runs sends on several threads ({@code sendMessageThreadPoolNums}, min(cores, 4)), so
 * a request still queued there when its client gave up can be stored after the key's next message:
 * out of order, and WAIT promises order. The key's next send waits until the fence passes, longer
 * than a broker keeps a send queued before it drops it ({@code waitTimeMillsInSendQueue}, 200 ms by
 * default, counted from when the broker reads the request); a send whose timeout comes first fails
 * without going out. A broker stalled (a GC pause, a frozen process) for longer than the fence
 * can still store the old request late: the fence narrows the window to such stalls, it cannot
 * close it. Memory: one entry per key fenced in the last 1.5 s, and passed fences of keys never
 * sent again, dropped once there are more than {@link #PRUNE_ABOVE}. DR Studio's own client does
 * the same ({@code order-fence.ts}).
 */
final class OrderFences {
    /** How long a key waits after one of its sends ended unanswered. */
    static final long FENCE_MS = 1500;
    /** Less than this left of a send's timeout after its fence: it would time out unsent. */
    static final long MIN_SEND_MS = 100;
    /** Past this many fenced keys, passed fences are dropped (keys that are never sent again). */
    static final int PRUNE_ABOVE = 1024;

    /** One synchronous send given what is left of its timeout. */
    interface TimedSend {
        SendResult send(long timeoutMs) throws Exception;
    }

    /** Pauses the calling thread (a fake in tests). */
    interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    private final Map<String, Long> until = new ConcurrentHashMap<>();
    private final long fenceMs;
    private final LongSupplier clock;
    private final Sleeper sleeper;

    OrderFences(long fenceMs, LongSupplier clock, Sleeper sleeper) {
        this.fenceMs = fenceMs;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /** How long {@code key} must still wait at {@code now} (0: go); a passed fence is forgotten. */
    long waitFor(String key, long now) {
        Long t = until.get(key);
        if (t == null) return 0;
        if (t <= now) {
            until.remove(key, t);
            return 0;
        }
        return t - now;
    }

    int size() {
        return until.size();
    }

    /**
     * Sends {@code key}'s next message once its fence has passed, within {@code timeoutMs} in all;
     * a send that ends unanswered (timed out, or its connection lost after the request may have gone
     * out) fences the key. A refused connection or a broker's answer does not: nothing is left queued.
     */
    SendResult send(String key, long timeoutMs, TimedSend send) throws Exception {
        long begin = clock.getAsLong();
        long wait = waitFor(key, begin);
        if (wait > timeoutMs - MIN_SEND_MS) {
            throw new RemotingTooMuchRequestException("ordered send of key " + key + " held " + wait
                + " ms by its order fence (an earlier send of the key ended unanswered), longer than its timeout of "
                + timeoutMs + " ms");
        }
        if (wait > 0) sleeper.sleep(wait);
        long left = timeoutMs - (clock.getAsLong() - begin);
        if (left < MIN_SEND_MS) {
            throw new RemotingTooMuchRequestException("ordered send of key " + key + " timed out behind its order fence");
        }
        try {
            return send.send(left);
        } catch (RemotingTimeoutException | RemotingSendRequestException e) {
            long now = clock.getAsLong();
            if (until.size() > PRUNE_ABOVE) until.values().removeIf(t -> t <= now);
            until.merge(key, now + fenceMs, Math::max);
            throw e;
        }
    }
}
