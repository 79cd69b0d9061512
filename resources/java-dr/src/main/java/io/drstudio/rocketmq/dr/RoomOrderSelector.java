package io.drstudio.rocketmq.dr;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Ordered sends kept in their room (claim 1 for {@code send(msg, selector, key)}). The textbook
 * selector hashes a key over every room's queues, in the order the route lists them, so a key of a
 * room-1 producer lands in room 2 half the time, and when a broker leaves the route the list
 * shrinks and keys move: their order silently breaks (apache/rocketmq#569). This one hashes the key
 * over its own room's write queues (brokers by name, queues by id; another room's stand in only
 * until the own room has queues), and remembers those queues per topic, so a broker leaving the
 * route does not move a key: the list only grows. A broker that joins the room, or one that was
 * out of the route when the topic was first sent, moves keys when it appears (as any hash does on
 * a scale-out). Memory is one queue list per topic, whatever the number of keys (and, under WAIT,
 * the fences of keys whose send recently ended unanswered).
 *
 * <p>{@link Policy#WAIT} (the default) always answers the home queue: while its broker is gone the
 * send fails (order kept, availability lost). Sent through {@link RoomAwareProducer}'s synchronous
 * {@code send(msg, selector, key)}, a key whose send ended unanswered also waits 1.5 s before its
 * next one goes out ({@link OrderFences}), so a request the broker still held is stored or dropped
 * before it (unless the broker stalls longer than that). {@link Policy#REROUTE} answers the home queue while
 * its broker is in the route, else the key's hash over the rest of its room's queues, else over the
 * other rooms' (availability kept, the key's order broken by design). The stock client makes one
 * attempt for a selector send; retrying a failed one is the application's choice.
 */
public final class RoomOrderSelector implements MessageQueueSelector {
    /** What a key does while its home queue's broker is not in the route. */
    public enum Policy {
        WAIT,
        REROUTE
    }

    private static final Comparator<MessageQueue> BY_BROKER_THEN_ID =
        Comparator.comparing(MessageQueue::getBrokerName).thenComparingInt(MessageQueue::getQueueId);

    private final String room;
    private final Policy policy;
    /** A queue's room (null when unknown), e.g. from the producer's route table. */
    private final Function<MessageQueue, String> roomOf;
    /** Per topic, the queues keys are hashed over: the own room's as first seen, grown, never shrunk. */
    private final Map<String, Home> homes = new ConcurrentHashMap<>();

    /** {@code own}: the queues are the own room's (not another room's standing in). */
    private record Home(List<MessageQueue> queues, boolean own) {
    }

    /** {@link Policy#WAIT}: keys whose last send ended unanswered (used by {@link RoomAwareProducer}). */
    private final OrderFences fences;

    public RoomOrderSelector(String room, Policy policy, Function<MessageQueue, String> roomOf) {
        this(room, policy, roomOf, new OrderFences(OrderFences.FENCE_MS, System::currentTimeMillis, Thread::sleep));
    }

    RoomOrderSelector(String room, Policy policy, Function<MessageQueue, String> roomOf, OrderFences fences) {
        this.room = room;
        this.policy = policy;
        this.roomOf = roomOf;
        this.fences = fences;
    }

    OrderFences fences() {
        return fences;
    }

    public Policy policy() {
        return policy;
    }

    /** The key's home queue, or null before the topic's first send. */
    public MessageQueue homeOf(String topic, Object key) {
        Home home = homes.get(topic);
        return home == null ? null : byHash(String.valueOf(key), home.queues());
    }

    @Override
    public MessageQueue select(List<MessageQueue> mqs, Message msg, Object arg) {
        if (mqs == null || mqs.isEmpty()) return homeOf(msg.getTopic(), arg);
        String key = String.valueOf(arg);
        MessageQueue home = byHash(key, homeOf(msg.getTopic(), mqs).queues());
        if (policy == Policy.WAIT || brokerListed(mqs, home.getBrokerName())) return home;
        return byHash(key, roomFirst(mqs, home.getBrokerName()));
    }

    /** The topic's home queues, grown by any own-room queue the route shows that they lack. */
    private Home homeOf(String topic, List<MessageQueue> mqs) {
        // Rooms are read here, outside the map's lock (a route-table lookup per queue).
        List<MessageQueue> own = new ArrayList<>();
        for (MessageQueue mq : mqs) if (room.equals(roomOf.apply(mq))) own.add(mq);
        Home now = own.isEmpty() ? new Home(sorted(mqs), false) : new Home(sorted(own), true);
        return homes.merge(topic, now, (known, seen) -> {
            // Another room's queues stand in only while the own room has none known.
            if (seen.own() && !known.own()) return seen;
            if (!seen.own() || known.queues().containsAll(seen.queues())) return known;
            TreeSet<MessageQueue> grown = new TreeSet<>(BY_BROKER_THEN_ID);
            grown.addAll(known.queues());
            grown.addAll(seen.queues());
            return new Home(List.copyOf(grown), true);
        });
    }

    private static List<MessageQueue> sorted(List<MessageQueue> mqs) {
        List<MessageQueue> out = new ArrayList<>(mqs);
        out.sort(BY_BROKER_THEN_ID);
        return List.copyOf(out);
    }

    /** The own room's queues in a stable order, or every room's when the own room has none. */
    private List<MessageQueue> roomFirst(List<MessageQueue> mqs, String leaving) {
        List<MessageQueue> own = new ArrayList<>();
        List<MessageQueue> all = new ArrayList<>();
        for (MessageQueue mq : mqs) {
            if (mq.getBrokerName().equals(leaving)) continue;
            all.add(mq);
            if (room.equals(roomOf.apply(mq))) own.add(mq);
        }
        List<MessageQueue> from = own.isEmpty() ? all : own;
        from.sort(BY_BROKER_THEN_ID);
        return from;
    }

    private static boolean brokerListed(List<MessageQueue> mqs, String brokerName) {
        for (MessageQueue mq : mqs) if (mq.getBrokerName().equals(brokerName)) return true;
        return false;
    }

    /**
     * The key's {@code String.hashCode} over the queues as the stock {@code SelectMessageQueueByHash}
     * and our own client take it: the absolute value of the remainder.
     */
    static int indexOf(String key, int size) {
        return Math.abs(key.hashCode() % size);
    }

    private static MessageQueue byHash(String key, List<MessageQueue> from) {
        return from.get(indexOf(key, from.size()));
    }
}
