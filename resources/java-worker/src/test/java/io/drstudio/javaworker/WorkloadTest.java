package io.drstudio.javaworker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONObject;
import org.junit.jupiter.api.Test;

class WorkloadTest {
    private static JSONObject args(String producer) {
        return JSON.parseObject(
            "{\"t0\":1000,\"end\":null,\"maxInflight\":4,\"tag\":\"dr\",\"producers\":[" + producer + "]}");
    }

    @Test
    void acceptsDelayedMessagesAndRefusesADelayOutOfRange() {
        new Workload(args("{\"id\":\"p1\",\"rate\":10,\"messageSize\":8,\"offsetMs\":0,\"delayMs\":5000}"),
            id -> null, null, "room1");
        for (String ok : new String[] {"1000", "3600000", "2500.5", "null"}) {
            Workload.slot(JSON.parseObject("{\"id\":\"p1\",\"rate\":10,\"delayMs\":" + ok + "}"), 0, 1000);
        }
        for (String bad : new String[] {"999", "3600001", "0", "-5000", "\"5000\"", "true", "{}"}) {
            WorkerException e = assertThrows(WorkerException.class, () -> new Workload(
                args("{\"id\":\"p1\",\"rate\":10,\"delayMs\":" + bad + "}"), id -> null, null, "room1"));
            assertEquals("bad-args", e.code);
            assertEquals("workload.start args.producers[0].delayMs must be a number between 1000 and 3600000", e.getMessage());
        }
    }

    @Test
    void refusesADelayedOrderedOrTransactionalProducer() {
        for (String kind : new String[] {"\"orderKeys\":4", "\"transaction\":{\"commitShare\":1,\"checkShare\":0}"}) {
            WorkerException e = assertThrows(WorkerException.class, () -> new Workload(
                args("{\"id\":\"p1\",\"rate\":10,\"delayMs\":5000," + kind + "}"), id -> null, null, "room1"));
            assertEquals("bad-args", e.code);
            assertTrue(e.getMessage().startsWith("workload.start args.producers[0] cannot be both delayed and "), e.getMessage());
        }
    }

    @Test
    void aDelayedMessageIsDueDelayMsAfterItsSlotInWholeMs() {
        // offsetMs 20 from t0 1000 at 8/s: slots at 1020, 1145, 1270, ...
        Workload.Slot s = Workload.slot(
            JSON.parseObject("{\"id\":\"p1\",\"rate\":8,\"offsetMs\":20,\"delayMs\":5000}"), 0, 1000);
        assertEquals(6020, s.dueAt(s.due(0)));
        assertEquals(6145, s.dueAt(s.due(1)));
        // Rounded: the broker refuses a fractional TIMER_DELIVER_MS.
        assertEquals(6000, s.dueAt(1000.49));
        assertEquals(6001, s.dueAt(1000.5));
        Workload.Slot plain = Workload.slot(JSON.parseObject("{\"id\":\"p1\",\"rate\":8}"), 0, 1000);
        assertEquals(0, plain.delayMs);
    }

    @Test
    void acceptsOrderedMessagesAndRefusesABadKeyCount() {
        new Workload(args("{\"id\":\"p1\",\"rate\":10,\"messageSize\":8,\"offsetMs\":0,\"orderKeys\":16}"),
            id -> null, null, "room1");
        WorkerException e = assertThrows(WorkerException.class, () -> new Workload(
            args("{\"id\":\"p1\",\"rate\":10,\"messageSize\":8,\"offsetMs\":0,\"orderKeys\":0}"),
            id -> null, null, "room1"));
        assertEquals("bad-args", e.code);
        assertTrue(e.getMessage().contains("orderKeys"), e.getMessage());
    }

    @Test
    void acceptsTransactionalMessagesAndRefusesBadShares() {
        new Workload(args("{\"id\":\"p1\",\"rate\":10,\"transaction\":{\"commitShare\":0.9,\"checkShare\":0}}"),
            id -> null, null, "room1");
        new Workload(args("{\"id\":\"p1\",\"rate\":10,\"transaction\":null}"), id -> null, null, "room1");
        for (String bad : new String[] {
            "{\"commitShare\":1.5,\"checkShare\":0}", "{\"commitShare\":0.5}", "{\"commitShare\":\"0.5\",\"checkShare\":0}",
            "{\"commitShare\":0.5,\"checkShare\":-0.1}"}) {
            WorkerException e = assertThrows(WorkerException.class, () -> new Workload(
                args("{\"id\":\"p1\",\"rate\":10,\"transaction\":" + bad + "}"), id -> null, null, "room1"));
            assertEquals("bad-args", e.code);
            assertTrue(e.getMessage().startsWith("workload.start args.producers[0].transaction."), e.getMessage());
            assertTrue(e.getMessage().endsWith(" must be a number between 0 and 1"), e.getMessage());
        }
        WorkerException notObject = assertThrows(WorkerException.class, () -> new Workload(
            args("{\"id\":\"p1\",\"rate\":10,\"transaction\":true}"), id -> null, null, "room1"));
        assertEquals("bad-args", notObject.code);
    }

    @Test
    void refusesAnOrderedTransactionalProducer() {
        WorkerException e = assertThrows(WorkerException.class, () -> new Workload(
            args("{\"id\":\"p1\",\"rate\":10,\"orderKeys\":4,\"transaction\":{\"commitShare\":1,\"checkShare\":0}}"),
            id -> null, null, "room1"));
        assertEquals("bad-args", e.code);
    }

    @Test
    void theSelectorHashesTheKeyOverTheRouteQueues() {
        var a = new org.apache.rocketmq.common.message.MessageQueue("T", "broker-a", 0);
        var b = new org.apache.rocketmq.common.message.MessageQueue("T", "broker-b", 1);
        var both = java.util.List.of(a, b);
        // "p:k0".hashCode() is odd: the second queue of two; the key moves when the list shrinks.
        assertEquals(1, Math.floorMod("p:k0".hashCode(), 2));
        assertEquals(b, KeyHashSelector.INSTANCE.select(both, null, "p:k0"));
        assertEquals(a, KeyHashSelector.INSTANCE.select(java.util.List.of(a), null, "p:k0"));
    }

    @Test
    void acceptsPlainMessages() {
        new Workload(args("{\"id\":\"p1\",\"rate\":10,\"messageSize\":8,\"offsetMs\":0}"), id -> null, null, "room1");
    }
}
