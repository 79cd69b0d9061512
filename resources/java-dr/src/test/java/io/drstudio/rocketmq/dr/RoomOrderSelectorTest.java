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
        assertEquals(sorted.get(RoomOrderSelector.indexOf("k7", 8)), a);
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
        assertEquals(all.get(RoomOrderSelector.indexOf("k1", 8)), s.select(all, MSG, "k1"));
    }

    @Test
    void homesAreKeptPerTopicNotPerKeyAndGrowWhenTheRoomGainsABroker() {
        RoomOrderSelector s = selector("room1", RoomOrderSelector.Policy.WAIT);
        // broker-1 alone first, so every key lives on it.
        for (int k = 0; k < 1000; k++) assertEquals("broker-1", s.select(queues("broker-1", "broker-2"), MSG, "k" + k).getBrokerName());
        // broker-3 joins room 1: the hash now spans both (a scale-out moves keys, as any hash).
        s.select(queues("broker-1", "broker-2", "broker-3"), MSG, "k0");
        List<MessageQueue> both = queues("broker-1", "broker-3");
        for (int k = 0; k < 50; k++) assertEquals(both.get(RoomOrderSelector.indexOf("k" + k, 8)), s.homeOf("orders", "k" + k));
        // broker-1 leaves the route: nothing shrinks, no key moves.
        MessageQueue before = s.homeOf("orders", "k7");
        assertEquals(before, s.select(queues("broker-3", "broker-2"), MSG, "k7"));
    }

    @Test
    void anotherRoomStandsInOnlyUntilTheOwnRoomHasQueues() {
        RoomOrderSelector s = selector("room1", RoomOrderSelector.Policy.WAIT);
        assertEquals("broker-2", s.select(queues("broker-2"), MSG, "k1").getBrokerName());
        assertEquals("broker-1", s.select(queues("broker-1", "broker-2"), MSG, "k1").getBrokerName());
        // Room 1 gone again: the key waits on its own room's queue, not back to room 2.
        assertEquals("broker-1", s.select(queues("broker-2"), MSG, "k1").getBrokerName());
    }

    @Test
    void aNegativeHashIndexesAsTheStockSelectorAndOurClientDo() {
        // "key-15".hashCode() is negative: |h % 8| (stock SelectMessageQueueByHash, choose-ordered.ts), not floorMod.
        assertTrue("key-15".hashCode() < 0);
        assertEquals(Math.abs("key-15".hashCode() % 8), RoomOrderSelector.indexOf("key-15", 8));
        assertEquals(6, RoomOrderSelector.indexOf("key-15", 8));
    }

    @Test
    void anEmptyRouteAnswersTheRememberedHomeOrNothing() {
        RoomOrderSelector s = selector("room1", RoomOrderSelector.Policy.WAIT);
        assertNull(s.select(List.of(), MSG, "k1"));
        MessageQueue home = s.select(queues("broker-1"), MSG, "k1");
        assertEquals(home, s.select(List.of(), MSG, "k1"));
        // Homes are per topic.
        assertNull(s.homeOf("payments", "k1"));
    }
}
