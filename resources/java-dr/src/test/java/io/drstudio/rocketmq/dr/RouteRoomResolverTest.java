package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.junit.jupiter.api.Test;

class RouteRoomResolverTest {
    private static TopicRouteData route() {
        TopicRouteData r = new TopicRouteData();
        List<BrokerData> brokers = new ArrayList<>();
        BrokerData a = new BrokerData("cluster", "broker-a", new HashMap<>());
        a.setZoneName("room1");
        brokers.add(a);
        brokers.add(new BrokerData("cluster", "broker-x", new HashMap<>()));
        r.setBrokerDatas(brokers);
        return r;
    }

    @Test
    void aQueuesRoomIsItsBrokersZoneTheConfiguredMapWinning() {
        RoomAwareConfig config = RoomAwareConfig.builder("room1").brokerRoom("broker-b", "room2").build();
        RouteRoomResolver r = new RouteRoomResolver(config, () -> Map.of("t", route()));
        assertEquals("room1", r.brokerDeployIn(new MessageQueue("t", "broker-a", 0)));
        assertEquals("room2", r.brokerDeployIn(new MessageQueue("t", "broker-b", 0)));
        // No zone and no map: a room of its own, so its queues are shared, not dropped.
        assertEquals("broker:broker-x", r.brokerDeployIn(new MessageQueue("t", "broker-x", 0)));
        assertEquals("broker:broker-a", new RouteRoomResolver(config, () -> null).brokerDeployIn(new MessageQueue("t", "broker-a", 0)));
    }

    @Test
    void aConsumersRoomIsTheUnitAtTheEndOfItsClientId() {
        assertEquals("room2", RouteRoomResolver.roomOfClientId("10.2.0.5@consumer-2#77@room2"));
        assertEquals("unknown", RouteRoomResolver.roomOfClientId("10.2.0.5@consumer-2"));
        assertEquals("unknown", RouteRoomResolver.roomOfClientId("10.2.0.5@consumer-2@ "));
    }

    @Test
    void producersSeeBrokersWithTheirRoomsInRouteOrder() {
        RoomAwareConfig config = RoomAwareConfig.builder("room1").build();
        List<MessageQueue> qs = List.of(new MessageQueue("t", "broker-x", 0), new MessageQueue("t", "broker-a", 0),
            new MessageQueue("t", "broker-a", 1));
        List<BrokerView> b = RouteRooms.brokersOf(qs, RouteRooms.roomsOf(route(), config), config);
        assertEquals(2, b.size());
        assertEquals(new BrokerView("broker-x", null, List.of(qs.get(0))), b.get(0));
        assertEquals("room1", b.get(1).room());
        assertEquals(2, b.get(1).queues().size());
    }
}
