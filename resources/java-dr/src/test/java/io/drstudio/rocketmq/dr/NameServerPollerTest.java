package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.exception.MQClientException;
import org.junit.jupiter.api.Test;

class NameServerPollerTest {
    private final Map<String, List<NameServerEntry>> answers = new HashMap<>();
    private final List<String> heard = new ArrayList<>();
    private final ManagementSource source = (node, timeoutMs) -> {
        List<NameServerEntry> a = answers.get(node.room());
        if (a == null) throw new IOException("connection refused");
        return a;
    };
    private final RoomAwareConfig config = RoomAwareConfig.builder("room1")
        .managementNode("room2", "http://10.2.0.9:8080")
        .managementNode("room1", "http://10.1.0.9:8080")
        .listener(new RoomAwareListener() {
            @Override
            public void nameServersChanged(NameServerSelection s, List<NameServerEntry> entries, String from, boolean fallback) {
                heard.add("list " + s.joined() + " " + s.reason().wire + " from " + from + (fallback ? " (fallback)" : ""));
            }

            @Override
            public void managementChanged(String answeringRoom, String ownRoomError) {
                heard.add("management " + answeringRoom + (ownRoomError == null ? "" : " because " + ownRoomError));
            }
        }).build();

    private static List<NameServerEntry> view(boolean room1Up) {
        return List.of(new NameServerEntry("ns-1", "room1", "10.1.0.2:9876", room1Up),
            new NameServerEntry("ns-2", "room2", "10.2.0.2:9876", true));
    }

    @Test
    void preparesTheClientWithItsRoomsNameServersAskingItsOwnRoomFirst() throws Exception {
        answers.put("room1", view(true));
        answers.put("room2", List.of());
        List<String> set = new ArrayList<>();
        new NameServerPoller(config, source).prepare(set::add);
        assertEquals(List.of("10.1.0.2:9876"), set);
        assertEquals(List.of("management room1", "list 10.1.0.2:9876 same-room from room1"), heard);
    }

    @Test
    void followsTheRoomsNameServersDownAndBackOnlyOnChanges() {
        answers.put("room1", view(true));
        NameServerPoller p = new NameServerPoller(config, source);
        p.pollOnce();
        p.pollOnce();
        answers.put("room1", view(false));
        assertEquals("10.2.0.2:9876", p.pollOnce().joined());
        answers.put("room1", view(true));
        p.pollOnce();
        assertEquals(List.of("management room1", "list 10.1.0.2:9876 same-room from room1",
            "list 10.2.0.2:9876 other-room from room1", "list 10.1.0.2:9876 same-room from room1"), heard);
    }

    @Test
    void asksAnotherRoomsNodeWhileItsOwnIsDownAndKeepsTheListWhenNoneAnswers() {
        answers.put("room1", view(true));
        NameServerPoller p = new NameServerPoller(config, source);
        p.pollOnce();
        answers.remove("room1");
        answers.put("room2", view(true));
        assertEquals("10.1.0.2:9876", p.pollOnce().joined());
        answers.remove("room2");
        assertEquals("10.1.0.2:9876", p.pollOnce().joined());
        answers.put("room1", view(true));
        p.pollOnce();
        assertEquals("management room2 because http://10.1.0.9:8080: java.io.IOException: connection refused", heard.get(2));
        assertTrue(heard.get(3).startsWith("management null because http://10.1.0.9:8080"), heard.get(3));
        assertEquals("management room1", heard.get(4));
        assertEquals(5, heard.size());
    }

    @Test
    void aClientCannotStartWithoutAnyAnswerAndIsToldWhy() {
        NameServerPoller p = new NameServerPoller(config, source);
        MQClientException e = assertThrows(MQClientException.class, () -> p.prepare(addr -> { }));
        assertTrue(e.getMessage().contains("no management node answered"), e.getMessage());
        assertTrue(e.getMessage().contains("http://10.1.0.9:8080"), e.getMessage());
        assertNull(p.current());
    }

    @Test
    void nothingAvailableAnywhereKeepsTheLastList() {
        answers.put("room1", view(true));
        NameServerPoller p = new NameServerPoller(config, source);
        p.pollOnce();
        answers.put("room1", List.of(new NameServerEntry("ns-1", "room1", "10.1.0.2:9876", false)));
        assertEquals("10.1.0.2:9876", p.pollOnce().joined());
    }

    @Test
    void parsesTheManagementNodesAnswer() throws Exception {
        List<NameServerEntry> e = ManagementSource.parse("{\"id\":\"mgmt-1\",\"room\":\"room1\",\"nameServers\":["
            + "{\"id\":\"ns-1\",\"room\":\"room1\",\"address\":\"10.1.0.2:9876\",\"available\":false},"
            + "{\"room\":\"room2\",\"address\":\"10.2.0.2:9876\"},{\"id\":\"x\",\"room\":\"room2\"}]}", "test");
        assertEquals(List.of(new NameServerEntry("ns-1", "room1", "10.1.0.2:9876", false),
            new NameServerEntry("10.2.0.2:9876", "room2", "10.2.0.2:9876", true)), e);
        assertThrows(IOException.class, () -> ManagementSource.parse("not json", "test"));
        assertThrows(IOException.class, () -> ManagementSource.parse("{\"id\":1}", "test"));
    }

    @Test
    void configRefusesWhatCannotWork() {
        assertThrows(IllegalArgumentException.class, () -> RoomAwareConfig.builder(" "));
        assertThrows(IllegalArgumentException.class, () -> RoomAwareConfig.builder("r").managementNode("r", "10.0.0.1:8080"));
        assertThrows(IllegalArgumentException.class, () -> RoomAwareConfig.builder("r").pollInterval(0));
        assertThrows(IllegalArgumentException.class, () -> RoomAwareConfig.builder("r").isolation(1000, 10));
    }
}
