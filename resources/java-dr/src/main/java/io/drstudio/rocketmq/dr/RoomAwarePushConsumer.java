package io.drstudio.rocketmq.dr;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.exception.MQClientException;
import java.util.List;
import org.apache.rocketmq.client.impl.FindBrokerResult;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.MixAll;

/**
 * A drop-in {@link DefaultMQPushConsumer} that consumes its room's queues and takes over the queues
 * of a room left without consumers (claim 5), with the stock {@link AllocateMachineRoomNearby}
 * (averagely within a room) and a {@link RouteRoomResolver}. Its client id carries the room as the
 * unit name ({@code ip@instance@room}) so the other consumers of the group can place it. Name
 * servers follow the room's management node as the producer's do; routes are polled every
 * {@link RoomAwareConfig#routePollMs()} and offsets committed every {@link RoomAwareConfig#offsetCommitMs()}.
 */
public class RoomAwarePushConsumer extends DefaultMQPushConsumer {
    /** RebalanceService reads it once, when its class loads. */
    public static final String REBALANCE_INTERVAL_PROPERTY = "rocketmq.client.rebalance.waitInterval";

    private final RoomAwareConfig config;
    private final NameServerPoller poller;

    public RoomAwarePushConsumer(String consumerGroup, RoomAwareConfig config) {
        this(consumerGroup, config, ManagementSource.HTTP);
    }

    RoomAwarePushConsumer(String consumerGroup, RoomAwareConfig config, ManagementSource source) {
        super(consumerGroup);
        this.config = config;
        this.poller = config.managementNodes().isEmpty() ? null : new NameServerPoller(config, source);
        setUnitName(config.room());
        setAllocateMessageQueueStrategy(new RoomAllocation(config, new RouteRoomResolver(config, () -> {
            MQClientInstance f = factory();
            return f == null ? null : f.getTopicRouteTable();
        }), this::consumersAt));
        setPollNameServerInterval((int) config.routePollMs());
        setHeartbeatBrokerInterval((int) config.heartbeatMs());
        setPersistConsumerOffsetInterval((int) config.offsetCommitMs());
        if (System.getProperty(REBALANCE_INTERVAL_PROPERTY) == null) {
            System.setProperty(REBALANCE_INTERVAL_PROPERTY, Long.toString(config.rebalanceIntervalMs()));
        }
    }

    public RoomAwareConfig roomAwareConfig() {
        return config;
    }

    /** The name-server poller, or null when the config names no management node. */
    public NameServerPoller nameServerPoller() {
        return poller;
    }

    @Override
    public void start() throws MQClientException {
        if (poller != null) poller.prepareUnlessSet(getNamesrvAddr(), this::setNamesrvAddr);
        super.start();
        if (poller != null) poller.attach(factory());
    }

    @Override
    public void shutdown() {
        if (poller != null) poller.close();
        super.shutdown();
    }

    /** The group's consumer ids as broker {@code brokerName}'s master lists them (1 s budget). */
    private List<String> consumersAt(String brokerName, String group) throws Exception {
        MQClientInstance f = factory();
        FindBrokerResult broker = f == null ? null : f.findBrokerAddressInSubscribe(brokerName, MixAll.MASTER_ID, true);
        if (broker == null) throw new IllegalStateException("no address for broker " + brokerName);
        List<String> ids = f.getMQClientAPIImpl().getConsumerIdListByGroup(broker.getBrokerAddr(), group, 1000);
        return ids == null ? List.of() : ids;
    }

    /** The client's internals, read for the route table and the name-server list only. */
    @SuppressWarnings("deprecation")
    private MQClientInstance factory() {
        return getDefaultMQPushConsumerImpl().getmQClientFactory();
    }
}
