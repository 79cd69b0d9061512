package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import io.drstudio.rocketmq.dr.NameServerEntry;
import io.drstudio.rocketmq.dr.NameServerSelection;
import io.drstudio.rocketmq.dr.RoomAwareConfig;
import io.drstudio.rocketmq.dr.RoomAwareListener;
import io.drstudio.rocketmq.dr.RoomAwareProducer;
import io.drstudio.rocketmq.dr.RoomAwarePushConsumer;
import io.drstudio.rocketmq.dr.RoomOrderSelector;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;

/**
 * The `java-dr` lane: the stock client with DR Studio's room-aware extension (resources/java-dr),
 * configured from the client's spec exactly as an application would from its room's values, with
 * the timers our own client uses. The extension's listener writes the ledger rows our client
 * writes (namesrv-list, management-fallback, broker-isolated, consumer-takeover); sends, failovers and deliveries are
 * recorded by the same hooks as every Java lane's.
 */
final class DrClients {
    /** Where the spec gives no tuning: the extension's 1 s request cap, our client's 1 s route and management polls. */
    static final long REQUEST_TIMEOUT_MS = 1000;
    static final long INTERVAL_MS = 1000;

    private DrClients() {
    }

    static RoomAwareProducer producer(ClientSpec spec, Outbox outbox) {
        refuseKinds(spec);
        return new RoomAwareProducer(spec.group, config(spec, outbox));
    }

    static RoomAwarePushConsumer consumer(ClientSpec spec, Outbox outbox) {
        refuseKinds(spec);
        return new RoomAwarePushConsumer(spec.group, config(spec, outbox));
    }

    /** Transactional sends go through the stock client's own path, which the extension leaves as it is. */
    private static void refuseKinds(ClientSpec spec) {
        if (spec.transactional) {
            throw new WorkerException("unsupported", "client " + spec.id + " on lane java-dr: the extension covers plain, "
                + "delayed and ordered messages; run transactional workloads on java, java-tuned or remoting");
        }
    }

    /** The extension's room-keeping selector for ordered sends, with the spec's orderPolicy. */
    static MessageQueueSelector orderSelector(ClientSpec spec, DefaultMQProducer producer) {
        return ((RoomAwareProducer) producer).orderSelector(
            spec.orderPolicy.equals("reroute") ? RoomOrderSelector.Policy.REROUTE : RoomOrderSelector.Policy.WAIT);
    }

    static RoomAwareConfig config(ClientSpec spec, Outbox outbox) {
        RoomAwareConfig.Builder b = RoomAwareConfig.builder(spec.room)
            .requestTimeout(spec.tuning("requestTimeoutMs", REQUEST_TIMEOUT_MS))
            .routePoll(spec.tuning("routeRefreshMs", INTERVAL_MS))
            .pollInterval(spec.tuning("managementRefreshMs", INTERVAL_MS))
            .heartbeat(spec.tuning("heartbeatIntervalMs", INTERVAL_MS))
            .listener(new LedgerListener(spec, outbox));
        for (ClientSpec.ManagementNode m : spec.managementNodes) b.managementNode(m.room(), m.url());
        for (Map.Entry<String, String> e : spec.brokerRooms.entrySet()) b.brokerRoom(e.getKey(), e.getValue());
        return b.build();
    }

    /** The extension's decisions as the ledger events our client writes. */
    private static final class LedgerListener implements RoomAwareListener {
        private final ClientSpec spec;
        private final Outbox outbox;
        /** The list in use before the last change, and who its first name server was. */
        private NameServerSelection previous;
        private NameServerEntry previousFirst;

        LedgerListener(ClientSpec spec, Outbox outbox) {
            this.spec = spec;
            this.outbox = outbox;
        }

        @Override
        public void nameServersChanged(NameServerSelection selection, List<NameServerEntry> entries, String managementRoom,
            boolean managementFallback) {
            JSONArray available = new JSONArray();
            for (NameServerEntry e : entries) {
                if (!e.available()) continue;
                JSONObject n = new JSONObject();
                n.put("id", e.id());
                n.put("room", e.room());
                n.put("address", e.address());
                available.add(n);
            }
            JSONObject data = new JSONObject();
            data.put("managementRoom", managementRoom);
            data.put("fallback", managementFallback);
            data.put("available", available);
            data.put("inUse", selection.addresses());
            data.put("reason", selection.reason().wire);
            outbox.event("namesrv-list", spec.id, spec.room, data);
            noteFailover(selection, entries);
        }

        /**
         * The list moved to another room's name servers: a name-server failover, as our client
         * records it when the management node reports its name server down (no request of its own
         * failed, so no duration).
         */
        private synchronized void noteFailover(NameServerSelection selection, List<NameServerEntry> entries) {
            NameServerEntry first = entries.stream().filter(e -> e.address().equals(selection.addresses().get(0)))
                .findFirst().orElse(null);
            if (previous != null && previousFirst != null && first != null
                && !previousFirst.room().equals(first.room())) {
                JSONObject data = new JSONObject();
                data.put("from", previousFirst.id());
                data.put("fromRoom", previousFirst.room());
                data.put("to", first.id());
                data.put("toRoom", first.room());
                data.put("reason", "unavailable");
                data.put("durationMs", null);
                outbox.event("namesrv-failover", spec.id, spec.room, data);
            }
            previous = selection;
            previousFirst = first;
        }

        @Override
        public void managementChanged(String answeringRoom, String ownRoomError) {
            if (spec.room.equals(answeringRoom)) return;
            JSONObject data = new JSONObject();
            data.put("fromRoom", spec.room);
            data.put("toRoom", answeringRoom);
            data.put("reason", ownRoomError);
            outbox.event("management-fallback", spec.id, spec.room, data);
        }

        @Override
        public void queuesTakenOver(String group, String topic, String fromRoom, int queues) {
            JSONObject data = new JSONObject();
            data.put("fromRoom", fromRoom);
            data.put("toRoom", spec.room);
            data.put("queues", queues);
            data.put("trigger", "rebalance");
            data.put("reason", "room " + fromRoom + " has no live consumer of " + group);
            outbox.event("consumer-takeover", spec.id, spec.room, data);
        }

        @Override
        public void brokerIsolated(String brokerName, String brokerRoom, long isolatedForMs, Throwable cause) {
            JSONObject data = new JSONObject();
            data.put("brokerName", brokerName);
            data.put("brokerRoom", brokerRoom);
            data.put("reason", String.valueOf(cause));
            data.put("isolatedForMs", isolatedForMs);
            outbox.event("broker-isolated", spec.id, spec.room, data);
        }

        @Override
        public void requestTimeoutChanged(long timeoutMs, long previousMs, Double p99Ms, int samples) {
            JSONObject data = new JSONObject();
            data.put("timeoutMs", timeoutMs);
            data.put("previousMs", previousMs);
            data.put("p99Ms", p99Ms == null ? null : Math.round(p99Ms * 10) / 10.0);
            data.put("samples", samples);
            outbox.event("request-timeout", spec.id, spec.room, data);
        }
    }
}
