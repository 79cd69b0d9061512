package io.drstudio.rocketmq.dr;

import java.util.Map;
import java.util.function.Supplier;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;

/**
 * {@link AllocateMachineRoomNearby}'s resolver from the routes (claim 5): a queue's room is its
 * broker's zone (or the configured map), a consumer's room is the unit name at the end of its client
 * id ({@code ip@instance@room}, which {@link RoomAwarePushConsumer} sets). A broker of no known room
 * counts as a room of its own and a consumer without a unit as room "unknown", so their queues are
 * shared rather than the rebalance failing.
 */
public final class RouteRoomResolver implements AllocateMachineRoomNearby.MachineRoomResolver {
    private final RoomAwareConfig config;
    private final Supplier<Map<String, TopicRouteData>> routes;

    /** @param routes the client's route table by topic (MQClientInstance.getTopicRouteTable()) */
    public RouteRoomResolver(RoomAwareConfig config, Supplier<Map<String, TopicRouteData>> routes) {
        this.config = config;
        this.routes = routes;
    }

    @Override
    public String brokerDeployIn(MessageQueue mq) {
        String broker = mq.getBrokerName();
        String room = config.brokerRoom(broker, null);
        if (room == null) {
            Map<String, TopicRouteData> table = routes.get();
            TopicRouteData route = table == null ? null : table.get(mq.getTopic());
            room = RouteRooms.roomsOf(route, config).get(broker);
        }
        return room != null ? room : "broker:" + broker;
    }

    @Override
    public String consumerDeployIn(String clientId) {
        return roomOfClientId(clientId);
    }

    /** The last {@code @} part of a client id with three or more parts, else "unknown". */
    public static String roomOfClientId(String clientId) {
        String[] parts = clientId.split("@");
        return parts.length >= 3 && !parts[parts.length - 1].isBlank() ? parts[parts.length - 1] : "unknown";
    }
}
