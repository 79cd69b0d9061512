package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

class RoomOrderSelectorTest {
    private static final Map<String, String> ROOMS = Map.of("broker-1", "room1", "broker-2", "room2", "broker-3", "room1");
    private static final Message MSG = new Message("orders", new byte[0]);

    /** Four queues per broker, listed as a route lists them: not sorted, rooms interleaved. */
    private static List<MessageQueue> queues(String... brokers) {
        List<MessageQueue> out = new ArrayList<>();
        for (String b : brokers) for (int i = 0; i < 4; i++) out.add(new MessageQueue("orders", b, i));
        return out;
    }

    private static RoomOrderSelector selector(String room, RoomOrderSelector.Policy policy) {
        return new RoomOrderSelector(room, policy, mq -> ROOMS.get(mq.getBrokerName()));
    }

    @Test
    void everyKeyOfARoomStaysOnItsRoomsQueues() {
        RoomOrderSelector s = selector("room2", RoomOrderSelector.Policy.WAIT);
        List<MessageQueue> mqs = queues("broker-1", "broker-2", "broker-3");
        for (int k = 0; k < 64; k++) assertEquals("broker-2", s.select(mqs, MSG, "key-" + k).getBrokerName());
        RoomOrderSelector r1 = selector("room1", RoomOrderSelector.Policy.WAIT);
        int onThree = 0;
        for (int k = 0; k < 64; k++) {
            String b = r1.select(mqs, MSG, "key-" + k).getBrokerName();
            assertTrue(b.equals("broker-1") || b.equals("broker-3"), b);
            if (b.equals("broker-3")) onThree++;
        }
        // Both of room 1's brokers carry keys.
        assertTrue(onThree > 0 && onThree < 64, "keys on broker-3: " + onThree);
    }

    @Test
    void theHomeQueueDoesNotDependOnTheRoutesOrder() {
        MessageQueue a = selector("room1", RoomOrderSelector.Policy.WAIT).select(queues("broker-1", "broker-2", "broker-3"), MSG, "k7");
        MessageQueue b = selector("room1", RoomOrderSelector.Policy.WAIT).select(queues("broker-3", "broker-2", "broker-1"), MSG, "k7");
        assertEquals(a, b);
        // Java's String.hashCode over room 1's 8 queues sorted by broker then id.
        List<MessageQueue> sorted = queues("broker-1", "broker-3");
        assertEquals(sorted.get(Math.floorMod("k7".hashCode(), 8)), a);
    }

    @Test
    void waitKeepsTheHomeQueueWhileItsBrokerIsGoneSoTheSendFailsRatherThanMoveTheKey() {
        RoomOrderSelector s = selector("room1", RoomOrderSelector.Policy.WAIT);
        MessageQueue home = s.select(queues("broker-1", "broker-2", "broker-3"), MSG, "k7");
        String other = home.getBrokerName().equals("broker-1") ? "broker-3" : "broker-1";
        // The home broker leaves the route (apache/rocketmq#569's moment): the key does not move.
        assertEquals(home, s.select(queues(other, "broker-2"), MSG, "k7"));
        assertEquals(home, s.select(queues("broker-2"), MSG, "k7"));
        assertEquals(home, s.homeOf("orders", "k7"));
        // And back: still the same queue.
        assertEquals(home, s.select(queues("broker-1", "broker-2", "broker-3"), MSG, "k7"));
    }

    @Test
    void rerouteMovesAKeyToItsRoomFirstAndBackHomeWhenTheBrokerReturns() {
        RoomOrderSelector s = selector("room1", RoomOrderSelector.Policy.REROUTE);
        MessageQueue home = s.select(queues("broker-1", "broker-2", "broker-3"), MSG, "k7");
        String other = home.getBrokerName().equals("broker-1") ? "broker-3" : "broker-1";
        assertEquals(other, s.select(queues("broker-1", "broker-2", "broker-3").stream()
            .filter(q -> !q.getBrokerName().equals(home.getBrokerName())).toList(), MSG, "k7").getBrokerName());
        // The whole room gone: another room's queue.
        assertEquals("broker-2", s.select(queues("broker-2"), MSG, "k7").getBrokerName());
        assertEquals(home, s.select(queues("broker-1", "broker-2", "broker-3"), MSG, "k7"));
    }

    @Test
    void aRoomWithoutQueuesHashesOverEveryRoomsAndAnUnknownRoomCountsAsAnother() {
        RoomOrderSelector s = new RoomOrderSelector("room9", RoomOrderSelector.Policy.WAIT, mq -> null);
        List<MessageQueue> all = queues("broker-1", "broker-2");
        assertEquals(all.get(Math.floorMod("k1".hashCode(), 8)), s.select(all, MSG, "k1"));
    }

    @Test
    void anEmptyRouteAnswersTheRememberedHomeOrNothing() {
        RoomOrderSelector s = selector("room1", RoomOrderSelector.Policy.WAIT);
        assertNull(s.select(List.of(), MSG, "k1"));
        MessageQueue home = s.select(queues("broker-1"), MSG, "k1");
        assertEquals(home, s.select(List.of(), MSG, "k1"));
        // Keys are per topic.
        assertNull(s.homeOf("payments", "k1"));
    }
}
