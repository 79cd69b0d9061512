package io.drstudio.rocketmq.dr;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The stock {@link AllocateMachineRoomNearby} (averagely within a room) with its takeovers told to
 * the listener: when this consumer is given queues of a room that has no consumer of the group
 * left, that is claim 5's takeover, reported once per room until the room has consumers again.
 */
final class RoomAllocation implements AllocateMessageQueueStrategy {
    private final AllocateMachineRoomNearby nearby;
    private final RouteRoomResolver resolver;
    private final RoomAwareConfig config;
    /** Per topic, the rooms whose queues this consumer holds as a takeover. */
    private final Map<String, Set<String>> taken = new HashMap<>();

    RoomAllocation(RoomAwareConfig config, RouteRoomResolver resolver) {
        this.nearby = new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver);
        this.resolver = resolver;
        this.config = config;
    }

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll,
        List<String> cidAll) {
        List<MessageQueue> mine = nearby.allocate(consumerGroup, currentCID, mqAll, cidAll);
        if (mqAll == null || mqAll.isEmpty()) return mine;
        noteTakeovers(consumerGroup, mqAll.get(0).getTopic(), mine, cidAll);
        return mine;
    }

    /** Rooms (of brokers) among {@code mine} that have no consumer in {@code cidAll}, with how many queues. */
    Map<String, Integer> orphanRooms(List<MessageQueue> mine, List<String> cidAll) {
        Set<String> withConsumers = new HashSet<>();
        for (String cid : cidAll) withConsumers.add(resolver.consumerDeployIn(cid));
        Map<String, Integer> out = new HashMap<>();
        for (MessageQueue mq : mine) {
            String room = resolver.brokerDeployIn(mq);
            if (!room.equals(config.room()) && !withConsumers.contains(room)) out.merge(room, 1, Integer::sum);
        }
        return out;
    }

    private synchronized void noteTakeovers(String group, String topic, List<MessageQueue> mine, List<String> cidAll) {
        Map<String, Integer> orphans = orphanRooms(mine, cidAll);
        Set<String> before = taken.computeIfAbsent(topic, k -> new HashSet<>());
        List<String> fresh = new ArrayList<>();
        for (String room : orphans.keySet()) if (!before.contains(room)) fresh.add(room);
        before.retainAll(orphans.keySet());
        before.addAll(orphans.keySet());
        for (String room : fresh) config.listener().queuesTakenOver(group, topic, room, orphans.get(room));
    }

    @Override
    public String getName() {
        return nearby.getName();
    }
}
