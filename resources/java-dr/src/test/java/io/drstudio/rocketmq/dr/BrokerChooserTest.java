package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.Test;

class BrokerChooserTest {
    private final AtomicLong now = new AtomicLong(0);
    private final BrokerIsolation isolation = new BrokerIsolation(1000, 8000, now::get);

    static BrokerView broker(String name, String room, int queues) {
        List<MessageQueue> qs = new ArrayList<>();
        for (int i = 0; i < queues; i++) qs.add(new MessageQueue("t", name, i));
        return new BrokerView(name, room, qs);
    }

    private final List<BrokerView> route = List.of(broker("broker-b", "room2", 4), broker("broker-a", "room1", 4),
        broker("broker-c", "room3", 4), broker("broker-a2", "room1", 4));

    private BrokerChooser.Choice choose(Set<String> tried, int cursor) {
        return BrokerChooser.choose("room1", route, isolation, tried, cursor);
    }

    @Test
    void sameRoomWhileOneIsHealthyRoundRobinAmongThem() {
        for (int c = 0; c < 8; c++) {
            BrokerChooser.Choice ch = choose(Set.of(), c);
            assertEquals("room1", ch.broker().room());
            assertEquals("same-room", ch.reason());
        }
        assertEquals("broker-a", choose(Set.of(), 0).broker().name());
        assertEquals("broker-a2", choose(Set.of(), 1).broker().name());
    }

    @Test
    void otherRoomsOnlyWhenEverySameRoomBrokerIsIsolatedOrTried() {
        isolation.isolate("broker-a");
        assertEquals("broker-a2", choose(Set.of(), 0).broker().name());
        BrokerChooser.Choice ch = choose(Set.of("broker-a2"), 0);
        assertEquals("other-room", ch.reason());
        assertEquals("broker-b", ch.broker().name());
        assertEquals("broker-c", choose(Set.of("broker-a2"), 1).broker().name());
    }

    @Test
    void everyBrokerIsolatedTriesTheOneWhoseIsolationEndsFirst() {
        isolation.isolate("broker-a");
        now.addAndGet(1000);
        isolation.isolate("broker-a"); // second strike: until 3000
        isolation.isolate("broker-b"); // until 2000
        isolation.isolate("broker-c");
        now.addAndGet(100);
        isolation.isolate("broker-a2"); // until 2100
        BrokerChooser.Choice ch = choose(Set.of(), 0);
        assertEquals("last-resort", ch.reason());
        assertEquals("broker-b", ch.broker().name());
        assertEquals("broker-c", choose(Set.of("broker-b"), 0).broker().name());
    }

    @Test
    void nothingLeftWhenEveryBrokerWasTriedOrHasNoQueue() {
        assertNull(choose(Set.of("broker-a", "broker-a2", "broker-b", "broker-c"), 0));
        assertNull(BrokerChooser.choose("room1", List.of(broker("x", "room1", 0)), isolation, Set.of(), 0));
        assertEquals(1, BrokerChooser.untried(route, Set.of("broker-a", "broker-a2", "broker-b")));
    }

    @Test
    void aBrokerOfNoKnownRoomIsAnotherRoom() {
        List<BrokerView> r = List.of(broker("x", null, 2), broker("a", "room1", 2));
        assertEquals("a", BrokerChooser.choose("room1", r, isolation, Set.of(), 0).broker().name());
        assertEquals("other-room", BrokerChooser.choose("room1", r, isolation, Set.of("a"), 0).reason());
    }

    @Test
    void queuesRoundRobinWithinTheBroker() {
        BrokerView b = broker("broker-a", "room1", 3);
        assertEquals(0, b.queue(0).getQueueId());
        assertEquals(2, b.queue(5).getQueueId());
        assertEquals(2, b.queue(-1).getQueueId());
    }
}
