package io.drstudio.rocketmq.dr;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;

/**
 * Rooms read from routes: 5.x name servers tag each broker of a route with its {@code zoneName}
 * (the broker's ROCKETMQ_ZONE); {@link RoomAwareConfig#brokerRoom} lets a configured map win.
 */
public final class RouteRooms {
    private RouteRooms() {
    }

    /** broker name → room for every broker of {@code route} (rooms may be null). */
    public static Map<String, String> roomsOf(TopicRouteData route, RoomAwareConfig config) {
        Map<String, String> out = new HashMap<>();
        if (route == null || route.getBrokerDatas() == null) return out;
        for (BrokerData b : route.getBrokerDatas()) {
            out.put(b.getBrokerName(), config.brokerRoom(b.getBrokerName(), b.getZoneName()));
        }
        return out;
    }

    /** The writable queues grouped by broker, in the route's order, each with its room. */
    public static List<BrokerView> brokersOf(List<MessageQueue> writable, Map<String, String> rooms, RoomAwareConfig config) {
        Map<String, List<MessageQueue>> byBroker = new LinkedHashMap<>();
        for (MessageQueue mq : writable) byBroker.computeIfAbsent(mq.getBrokerName(), k -> new ArrayList<>()).add(mq);
        List<BrokerView> out = new ArrayList<>();
        for (Map.Entry<String, List<MessageQueue>> e : byBroker.entrySet()) {
            String room = rooms.containsKey(e.getKey()) ? rooms.get(e.getKey()) : config.brokerRoom(e.getKey(), null);
            out.add(new BrokerView(e.getKey(), room, e.getValue()));
        }
        return out;
    }
}
