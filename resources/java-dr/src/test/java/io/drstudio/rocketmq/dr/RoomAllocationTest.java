package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

class RoomAllocationTest {
    private final List<String> heard = new ArrayList<>();
    private final RoomAwareConfig config = RoomAwareConfig.builder("room2")
        .brokerRoom("broker-a", "room1").brokerRoom("broker-b", "room2")
        .listener(new RoomAwareListener() {
            @Override
            public void queuesTakenOver(String group, String topic, String fromRoom, int queues) {
                heard.add(group + " " + topic + " " + fromRoom + " " + queues);
            }
        }).build();
    /** What broker-a (room 1) lists as the group's consumers; null: it does not answer. */
    private List<String> atBrokerA = null;
    private final RoomAllocation allocation = new RoomAllocation(config, new RouteRoomResolver(config, () -> null),
        (broker, group) -> {
            if (atBrokerA == null) throw new IllegalStateException("connection refused");
            return atBrokerA;
        });
    private final List<MessageQueue> all = new ArrayList<>();

    RoomAllocationTest() {
        for (String b : List.of("broker-a", "broker-b")) for (int q = 0; q < 4; q++) all.add(new MessageQueue("t", b, q));
    }

    @Test
    void aRoomsQueuesStayWithItsConsumersAndARoomWithoutConsumersIsTakenOverOnce() {
        List<String> both = List.of("10.1.0.5@c1@room1", "10.2.0.5@c2@room2");
        List<MessageQueue> mine = allocation.allocate("g", "10.2.0.5@c2@room2", all, both);
        assertEquals(4, mine.size());
        assertEquals(List.of(), heard);
        // Room 1's consumer is gone (its broker does not answer either): room 2's takes its queues, said once.
        List<String> alone = List.of("10.2.0.5@c2@room2");
        assertEquals(8, allocation.allocate("g", "10.2.0.5@c2@room2", all, alone).size());
        allocation.allocate("g", "10.2.0.5@c2@room2", all, alone);
        assertEquals(List.of("g t room1 4"), heard);
        // Room 1 is back, then gone again: a second takeover.
        allocation.allocate("g", "10.2.0.5@c2@room2", all, both);
        allocation.allocate("g", "10.2.0.5@c2@room2", all, alone);
        assertEquals(List.of("g t room1 4", "g t room1 4"), heard);
    }

    @Test
    void aRoomWhoseBrokerStillListsItsConsumerIsNotTakenOver() {
        // Broker-b's list lacks room 1's consumer (it has not reached broker-b yet); broker-a has it.
        atBrokerA = List.of("10.1.0.5@c1@room1", "10.2.0.5@c2@room2");
        List<MessageQueue> mine = allocation.allocate("g", "10.2.0.5@c2@room2", all, List.of("10.2.0.5@c2@room2"));
        assertEquals(4, mine.size());
        assertEquals(List.of(), heard);
        // Broker-a lists nobody of room 1: a takeover after all.
        atBrokerA = List.of("10.2.0.5@c2@room2");
        assertEquals(8, allocation.allocate("g", "10.2.0.5@c2@room2", all, List.of("10.2.0.5@c2@room2")).size());
        assertEquals(List.of("g t room1 4"), heard);
    }
}
