package io.drstudio.javaworker;

import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The Java lanes and the knobs each sets on the stock 5.3.3 client. Every setter below was checked
 * against rocketmq-all-5.3.3 (ClientConfig, DefaultMQProducer, DefaultMQPushConsumer). JVM-wide
 * knobs (address server, zone mode, rebalance interval, connect timeout) are system properties the
 * launcher sets (main/services/workers/java-worker-command.ts), one JVM per room and lane.
 */
enum Lane {
    /** Stock defaults: what a Java user gets without touching anything. */
    JAVA("java"),
    /** RocketMQ's own room awareness: zone mode (name-server filter) + AllocateMachineRoomNearby. */
    JAVA_ZONE("java-zone"),
    /** The best a Java user can configure without our client. */
    JAVA_TUNED("java-tuned"),
    /** The stock client with DR Studio's room-aware extension (resources/java-dr), see {@link DrClients}. */
    JAVA_DR("java-dr");

    /** Stock DefaultMQProducer.sendMsgTimeout (5.3.3 DefaultMQProducer.java:116). */
    static final long STOCK_SEND_TIMEOUT_MS = 3000;
    /** java-tuned defaults when the engine gives no tuning. */
    static final long TUNED_REQUEST_TIMEOUT_MS = 1000;
    static final long TUNED_INTERVAL_MS = 1000;

    final String wire;

    Lane(String wire) {
        this.wire = wire;
    }

    static Lane parse(String s) {
        for (Lane l : values()) {
            if (l.wire.equals(s)) return l;
        }
        return null;
    }

    static List<String> names() {
        List<String> out = new ArrayList<>();
        for (Lane l : values()) out.add(l.wire);
        return out;
    }

    /**
     * The scenario's per-message budget (tuning.sendTimeoutMs) applies to every lane so figures
     * compare; absent, it is the stock 3000 ms. Everything else on `java` and `java-zone` is stock:
     * retryTimesWhenSendFailed 2 inside that one budget, no latency fault isolation, route poll and
     * heartbeat every 30 s.
     */
    void applyProducer(ClientSpec spec, DefaultMQProducer p) {
        p.setSendMsgTimeout((int) spec.tuning("sendTimeoutMs", STOCK_SEND_TIMEOUT_MS));
        // java-dr: the extension's own attempts and isolation replace retries and the fault strategy.
        if (this == JAVA_DR) return;
        if (this != JAVA_TUNED) return;
        long budget = spec.tuning("sendTimeoutMs", STOCK_SEND_TIMEOUT_MS);
        long perRequest = Math.min(budget, spec.tuning("requestTimeoutMs", TUNED_REQUEST_TIMEOUT_MS));
        // Skip a broker that just failed or answered slowly (isolated 10 s after a RemotingException,
        // MQFaultStrategy.updateFaultItem); off by default because it disturbs ordered messages.
        p.setSendLatencyFaultEnable(true);
        // Cap every attempt but the last (DefaultMQProducerImpl.sendDefaultImpl), so a hung broker
        // costs one request timeout, not the whole 3 s budget...
        p.setSendMsgMaxTimeoutPerRequest((int) perRequest);
        // ...and allow as many attempts as fit in the budget (stock: 2 retries).
        p.setRetryTimesWhenSendFailed((int) Math.max(2, (budget + perRequest - 1) / perRequest - 1));
        applyClientTimers(spec, p);
        // mqClientApiTimeout (route queries, 3 s) stays stock: below it, a name server slowed by load
        // closes the socket (clientCloseSocketIfTimeout) and fails the consumer's start.
    }

    /** Consumers: stock everywhere but the allocation of java-zone and the timers of java-tuned. */
    void applyConsumer(ClientSpec spec, DefaultMQPushConsumer c) {
        if (this == JAVA_ZONE) {
            c.setAllocateMessageQueueStrategy(
                new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(), new RoomResolver(spec)));
        }
        if (this != JAVA_TUNED) return;
        applyClientTimers(spec, c);
        // Commit consumed offsets every second (stock 5 s): fewer redeliveries after a crash.
        c.setPersistConsumerOffsetInterval((int) TUNED_INTERVAL_MS);
    }

    /** Poll routes and heartbeat every second (stock 30 s each): a dead broker leaves the route sooner. */
    private static void applyClientTimers(ClientSpec spec, org.apache.rocketmq.client.ClientConfig cc) {
        cc.setPollNameServerInterval((int) spec.tuning("routeRefreshMs", TUNED_INTERVAL_MS));
        cc.setHeartbeatBrokerInterval((int) spec.tuning("heartbeatIntervalMs", TUNED_INTERVAL_MS));
    }

    /**
     * AllocateMachineRoomNearby's resolver: a queue's room is its broker's room from the engine
     * (spec.brokerRooms, i.e. the broker's zone); a consumer's room is the unit at the end of its client
     * id (`ip@instance@room`, see Clients.unitName). A broker the engine did not place counts as a room
     * of its own, so its queues are shared rather than the rebalance failing.
     */
    static final class RoomResolver implements AllocateMachineRoomNearby.MachineRoomResolver {
        private final ClientSpec spec;

        RoomResolver(ClientSpec spec) {
            this.spec = spec;
        }

        @Override
        public String brokerDeployIn(MessageQueue mq) {
            String room = spec.brokerRoom(mq.getBrokerName());
            return room != null ? room : "broker:" + mq.getBrokerName();
        }

        @Override
        public String consumerDeployIn(String clientId) {
            return roomOfClientId(clientId);
        }
    }

    /** The last `@` part of a client id with three or more parts, else "unknown". */
    static String roomOfClientId(String clientId) {
        String[] parts = clientId.split("@");
        return parts.length >= 3 && !parts[parts.length - 1].isBlank() ? parts[parts.length - 1] : "unknown";
    }
}
