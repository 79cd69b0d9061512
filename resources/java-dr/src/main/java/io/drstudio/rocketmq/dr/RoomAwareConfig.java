package io.drstudio.rocketmq.dr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the extension needs to know about the client's place: its room, the management nodes
 * of every room, and the timers. Immutable; build with {@link #builder(String)}.
 * Every default is what DR Studio's own client uses.
 */
public final class RoomAwareConfig {
    private final String room;
    private final List<ManagementNode> managementNodes;
    private final Map<String, String> brokerRooms;
    private final long pollIntervalMs;
    private final int managementTimeoutMs;
    private final long requestTimeoutMs;
    private final long maxRequestTimeoutMs;
    private final long isolationBaseMs;
    private final long isolationMaxMs;
    private final long routePollMs;
    private final long heartbeatMs;
    private final long rebalanceIntervalMs;
    private final long offsetCommitMs;
    private final RoomAwareListener listener;

    private RoomAwareConfig(Builder b) {
        this.room = b.room;
        this.managementNodes = List.copyOf(b.managementNodes);
        this.brokerRooms = Map.copyOf(b.brokerRooms);
        this.pollIntervalMs = b.pollIntervalMs;
        this.managementTimeoutMs = b.managementTimeoutMs;
        this.requestTimeoutMs = b.requestTimeoutMs;
        this.maxRequestTimeoutMs = b.maxRequestTimeoutMs > 0 ? b.maxRequestTimeoutMs : 4 * b.requestTimeoutMs;
        if (maxRequestTimeoutMs < requestTimeoutMs) {
            throw new IllegalArgumentException("maxRequestTimeout (" + maxRequestTimeoutMs
                + " ms) is below requestTimeout (" + requestTimeoutMs + " ms): raise it, or give the same value for a fixed timeout");
        }
        this.isolationBaseMs = b.isolationBaseMs;
        this.isolationMaxMs = b.isolationMaxMs;
        this.routePollMs = b.routePollMs;
        this.heartbeatMs = b.heartbeatMs;
        this.rebalanceIntervalMs = b.rebalanceIntervalMs;
        this.offsetCommitMs = b.offsetCommitMs;
        this.listener = new SafeListener(b.listener);
    }

    /** A builder for a client in {@code room} (the brokers' {@code ROCKETMQ_ZONE} of that room). */
    public static Builder builder(String room) {
        return new Builder(room);
    }

    public String room() {
        return room;
    }

    /** Every room's management nodes; the own room's are asked first. Empty: the list is the client's own. */
    public List<ManagementNode> managementNodes() {
        return managementNodes;
    }

    /** The own room's management nodes first, then the other rooms' in the order given. */
    public List<ManagementNode> managementOrder() {
        List<ManagementNode> out = new ArrayList<>();
        for (ManagementNode m : managementNodes) if (m.room().equals(room)) out.add(m);
        for (ManagementNode m : managementNodes) if (!m.room().equals(room)) out.add(m);
        return out;
    }

    /** A broker's room: the configured map first, else {@code zoneName} of the route (null when neither). */
    public String brokerRoom(String brokerName, String zoneName) {
        String mapped = brokerRooms.get(brokerName);
        return mapped != null ? mapped : zoneName == null || zoneName.isBlank() ? null : zoneName;
    }

    public long pollIntervalMs() {
        return pollIntervalMs;
    }

    public int managementTimeoutMs() {
        return managementTimeoutMs;
    }

    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /** The longest the request timeout grows to while healthy answers are slow (default 4 × requestTimeout). */
    public long maxRequestTimeoutMs() {
        return maxRequestTimeoutMs;
    }

    public long isolationBaseMs() {
        return isolationBaseMs;
    }

    public long isolationMaxMs() {
        return isolationMaxMs;
    }

    public long routePollMs() {
        return routePollMs;
    }

    public long heartbeatMs() {
        return heartbeatMs;
    }

    /** What {@code rocketmq.client.rebalance.waitInterval} becomes unless the JVM already has it. */
    public long rebalanceIntervalMs() {
        return rebalanceIntervalMs;
    }

    public long offsetCommitMs() {
        return offsetCommitMs;
    }

    public RoomAwareListener listener() {
        return listener;
    }

    public static final class Builder {
        private final String room;
        private final List<ManagementNode> managementNodes = new ArrayList<>();
        private final Map<String, String> brokerRooms = new LinkedHashMap<>();
        private long pollIntervalMs = 1000;
        private int managementTimeoutMs = 800;
        private long requestTimeoutMs = 1000;
        /** 0: 4 × requestTimeout. */
        private long maxRequestTimeoutMs = 0;
        private long isolationBaseMs = 1000;
        private long isolationMaxMs = 30_000;
        private long routePollMs = 1000;
        private long heartbeatMs = 1000;
        private long rebalanceIntervalMs = 1000;
        private long offsetCommitMs = 1000;
        private RoomAwareListener listener = new RoomAwareListener() {
        };

        private Builder(String room) {
            if (room == null || room.isBlank()) {
                throw new IllegalArgumentException("room is required: the client's machine room, as the brokers' ROCKETMQ_ZONE names it");
            }
            this.room = room;
        }

        /** A room's management node, e.g. {@code managementNode("room1", "http://10.1.0.9:8080")}. */
        public Builder managementNode(String room, String url) {
            managementNodes.add(new ManagementNode(room, url));
            return this;
        }

        /** A broker's room when its route carries no zone (brokers started without ROCKETMQ_ZONE). */
        public Builder brokerRoom(String brokerName, String brokerRoom) {
            brokerRooms.put(Objects.requireNonNull(brokerName, "brokerName"), Objects.requireNonNull(brokerRoom, "brokerRoom"));
            return this;
        }

        /** How often the management node is asked (default 1000 ms). */
        public Builder pollInterval(long ms) {
            this.pollIntervalMs = positive("pollInterval", ms);
            return this;
        }

        /** Connect and read timeout of one management request (default 800 ms). */
        public Builder managementTimeout(int ms) {
            this.managementTimeoutMs = (int) positive("managementTimeout", ms);
            return this;
        }

        /**
         * The longest one attempt may take while other brokers are left to try (default 1000 ms); the
         * last candidate gets whatever remains of the send timeout.
         */
        public Builder requestTimeout(long ms) {
            this.requestTimeoutMs = positive("requestTimeout", ms);
            return this;
        }

        /**
         * How far the request timeout may grow while the producer's healthy answers are slow (a busy
         * host): it is 1.5 × the p99 of the last 30 s of answers, never below requestTimeout nor above
         * this (default 4 × requestTimeout; the same value as requestTimeout: a fixed timeout).
         */
        public Builder maxRequestTimeout(long ms) {
            this.maxRequestTimeoutMs = positive("maxRequestTimeout", ms);
            return this;
        }

        /** A failed broker's first isolation, doubled on each failure in a row up to {@code maxMs}. */
        public Builder isolation(long baseMs, long maxMs) {
            this.isolationBaseMs = positive("isolation base", baseMs);
            if (maxMs < baseMs) throw new IllegalArgumentException("isolation max (" + maxMs + " ms) is below its base (" + baseMs + " ms)");
            this.isolationMaxMs = maxMs;
            return this;
        }

        /** How often routes are polled from the name server (ClientConfig.pollNameServerInterval; default 1000 ms, stock 30 s). */
        public Builder routePoll(long ms) {
            this.routePollMs = positive("routePoll", ms);
            return this;
        }

        /**
         * How often the client heartbeats every broker of its routes (ClientConfig.heartbeatBrokerInterval;
         * default 1000 ms, stock 30 s). A consumer cut off from a broker and back is in that broker's
         * consumer list again, so other rooms stop sharing its room's queues, one heartbeat later.
         */
        public Builder heartbeat(long ms) {
            this.heartbeatMs = positive("heartbeat", ms);
            return this;
        }

        /**
         * Consumers' periodic rebalance (default 1000 ms, stock 20 s): how soon a consumer notices a
         * room that lost its consumers when no broker told it. JVM-wide: set through the system
         * property {@code rocketmq.client.rebalance.waitInterval} when the first consumer is
         * created, unless the JVM already has it (start it with the property to choose yourself).
         */
        public Builder rebalanceInterval(long ms) {
            this.rebalanceIntervalMs = positive("rebalanceInterval", ms);
            return this;
        }

        /**
         * How often consumers commit consumed offsets (ClientConfig.persistConsumerOffsetInterval;
         * default 1000 ms, stock 5 s): what a consumer that takes over a dead room's queues reads
         * again is what was consumed there since the last commit.
         */
        public Builder offsetCommit(long ms) {
            this.offsetCommitMs = positive("offsetCommit", ms);
            return this;
        }

        public Builder listener(RoomAwareListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public RoomAwareConfig build() {
            return new RoomAwareConfig(this);
        }

        private static long positive(String what, long ms) {
            if (ms <= 0) throw new IllegalArgumentException(what + " must be a positive number of milliseconds, got " + ms);
            return ms;
        }
    }
}
