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
 * The stock {@link AllocateMachineRoomNearby} (averagely within a room), with claim 5's check and its
 * takeovers told to the listener. The stock rebalance lists the group's consumers as one broker
 * (picked at random) knows them, and a consumer that has not reached that broker yet looks gone: its
 * room's queues would be shared across rooms for a moment. So before taking a room's queues, the
 * room's own broker is asked whether the room has consumers of the group (claim 5: "brokers in other
 * rooms"); only when it has none (or cannot answer: the room is down) are they taken over, which is
 * reported once per room until the room has consumers again.
 */
final class RoomAllocation implements AllocateMessageQueueStrategy {
    private final AllocateMachineRoomNearby nearby;
    private final RouteRoomResolver resolver;
    private final RoomAwareConfig config;
    /** Per topic, the rooms whose queues this consumer holds as a takeover. */
    private final Map<String, Set<String>> taken = new HashMap<>();
    /** The group's consumers as a broker knows them; throws when the broker does not answer. */
    private final ConsumersAt consumersAt;

    /** Asks a broker (by name) for the consumer ids of a group. */
    @FunctionalInterface
    interface ConsumersAt {
        List<String> of(String brokerName, String group) throws Exception;
    }

    RoomAllocation(RoomAwareConfig config, RouteRoomResolver resolver, ConsumersAt consumersAt) {
        this.nearby = new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), resolver);
        this.resolver = resolver;
        this.config = config;
        this.consumersAt = consumersAt;
    }

    @Override
    public List<MessageQueue> allocate(String consumerGroup, String currentCID, List<MessageQueue> mqAll,
        List<String> cidAll) {
        List<MessageQueue> mine = nearby.allocate(consumerGroup, currentCID, mqAll, cidAll);
        if (mqAll == null || mqAll.isEmpty()) return mine;
        List<String> seen = withOrphanRoomsAsked(consumerGroup, mine, mqAll, cidAll);
        if (seen.size() != cidAll.size()) mine = nearby.allocate(consumerGroup, currentCID, mqAll, seen);
        noteTakeovers(consumerGroup, mqAll.get(0).getTopic(), mine, seen);
        return mine;
    }

    /**
     * {@code cidAll} plus the consumers that the brokers of each seemingly orphaned room list in that
     * room. A room whose broker does not answer keeps no consumer: its queues are taken over.
     */
    List<String> withOrphanRoomsAsked(String group, List<MessageQueue> mine, List<MessageQueue> mqAll,
        List<String> cidAll) {
        Map<String, Integer> orphans = orphanRooms(mine, cidAll);
        if (orphans.isEmpty()) return cidAll;
        List<String> seen = new ArrayList<>(cidAll);
        for (String room : orphans.keySet()) {
            String broker = null;
            for (MessageQueue mq : mqAll) {
                if (room.equals(resolver.brokerDeployIn(mq))) {
                    broker = mq.getBrokerName();
                    break;
                }
            }
            if (broker == null) continue;
            try {
                for (String cid : consumersAt.of(broker, group)) {
                    if (room.equals(resolver.consumerDeployIn(cid)) && !seen.contains(cid)) seen.add(cid);
                }
            } catch (Exception e) {
                // The room's broker does not answer: nothing says the room has consumers.
            }
        }
        seen.sort(null);
        return seen;
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
