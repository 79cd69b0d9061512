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
    void refusesDelayedMessagesRatherThanSendingThemPlain() {
        WorkerException e = assertThrows(WorkerException.class, () -> new Workload(
            args("{\"id\":\"p1\",\"rate\":10,\"messageSize\":8,\"offsetMs\":0,\"delayMs\":5000}"),
            id -> null, null, "room1"));
        assertEquals("unsupported", e.code);
        assertTrue(e.getMessage().contains("p1"), e.getMessage());
    }

    @Test
    void refusesOrderedMessagesRatherThanSendingThemUnordered() {
        WorkerException e = assertThrows(WorkerException.class, () -> new Workload(
            args("{\"id\":\"p1\",\"rate\":10,\"messageSize\":8,\"offsetMs\":0,\"orderKeys\":16}"),
            id -> null, null, "room1"));
        assertEquals("unsupported", e.code);
        assertTrue(e.getMessage().contains("ordered"), e.getMessage());
    }

    @Test
    void acceptsPlainMessages() {
        new Workload(args("{\"id\":\"p1\",\"rate\":10,\"messageSize\":8,\"offsetMs\":0}"), id -> null, null, "room1");
    }
}
