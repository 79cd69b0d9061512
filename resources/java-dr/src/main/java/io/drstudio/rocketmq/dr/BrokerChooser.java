package io.drstudio.rocketmq.dr;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which broker a send tries next (claims 1 and 3): a healthy broker of the client's own room first,
 * else a healthy one of another room, else (every broker isolated) the one whose isolation ends
 * first, since it may be back. Brokers already tried in this send are never chosen again. Among
 * equals, round-robin by {@code cursor}. A pure function of its input.
 */
public final class BrokerChooser {
    public record Choice(BrokerView broker, String reason) {
    }

    private BrokerChooser() {
    }

    /** Null when every broker with writable queues was tried already. */
    public static Choice choose(String room, List<BrokerView> brokers, BrokerIsolation isolation,
        Set<String> tried, int cursor) {
        List<BrokerView> same = new ArrayList<>();
        List<BrokerView> other = new ArrayList<>();
        BrokerView soonest = null;
        for (BrokerView b : brokers) {
            if (b.queues().isEmpty() || tried.contains(b.name())) continue;
            if (!isolation.isIsolated(b.name())) {
                (room.equals(b.room()) ? same : other).add(b);
            } else if (soonest == null || isolation.isolatedUntil(b.name()) < isolation.isolatedUntil(soonest.name())) {
                soonest = b;
            }
        }
        if (!same.isEmpty()) return new Choice(same.get(Math.floorMod(cursor, same.size())), "same-room");
        if (!other.isEmpty()) return new Choice(other.get(Math.floorMod(cursor, other.size())), "other-room");
        return soonest == null ? null : new Choice(soonest, "last-resort");
    }

    /** How many brokers a send could still try after {@code tried}. */
    public static int untried(List<BrokerView> brokers, Set<String> tried) {
        int n = 0;
        for (BrokerView b : brokers) if (!b.queues().isEmpty() && !tried.contains(b.name())) n++;
        return n;
    }
}
