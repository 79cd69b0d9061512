package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.lang.reflect.Field;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.RemotingClient;

/** What producers and consumers of the worker share: identity, lifecycle, the name server in use. */
abstract class HostedClient {
    private static final Field NAMESRV_CHOSEN = namesrvChosenField();

    final ClientSpec spec;
    final Outbox outbox;
    final NameServerDirectory directory;
    /** Unique per created client, so no two clients share an MQClientInstance (and a restart is new). */
    final String instanceName;
    volatile boolean alive;
    volatile boolean stopped;
    /** Set the moment a crash-stop cuts the sockets: nothing after it is delivered or recorded. */
    volatile boolean crashed;
    private volatile boolean everStarted;
    volatile String cid;
    /** The name server the client's remoting layer last chose, as the directory names it. */
    volatile NameServerDirectory.Entry namesrv;
    private volatile String reportedNamesrv;

    HostedClient(ClientSpec spec, Outbox outbox, NameServerDirectory directory, int generation) {
        this.spec = spec;
        this.outbox = outbox;
        this.directory = directory;
        this.instanceName = spec.id + "#" + ProcessHandle.current().pid() + "#" + generation;
    }

    abstract void start(long timeoutMs) throws Exception;

    abstract JSONObject state();

    abstract MQClientInstance factory();

    /**
     * The Java lanes' client ids carry the room as RocketMQ's unit name: `ip@instance@room`, like our
     * client's, so AllocateMachineRoomNearby's resolver (and the engine) read a consumer's room from
     * it. The unit also suffixes the address-server path (`nsaddr-room1`), which management nodes serve.
     */
    String unitName() {
        return spec.room;
    }

    /** Cuts every connection of this client without a goodbye (the crash half of stop). */
    void cutConnections() {
        MQClientInstance f = factory();
        if (f == null) return;
        try {
            f.getMQClientAPIImpl().getRemotingClient().shutdown();
        } catch (RuntimeException e) {
            Log.warn(spec.id + ": cutting connections: " + e);
        }
    }

    /** Re-reads the chosen name server; emits namesrv-choice and a choice frame when it changed. */
    void observeNamesrv() {
        MQClientInstance f = factory();
        if (f == null || NAMESRV_CHOSEN == null || !alive) return;
        String addr = null;
        try {
            RemotingClient rc = f.getMQClientAPIImpl().getRemotingClient();
            @SuppressWarnings("unchecked")
            AtomicReference<String> ref = (AtomicReference<String>) NAMESRV_CHOSEN.get(rc);
            addr = ref.get();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return;
        }
        if (addr == null) return;
        ClientSpec.ManagementNode mgmt = spec.ownManagementNode();
        NameServerDirectory.Entry entry = directory.resolve(addr, mgmt == null ? null : mgmt.url());
        namesrv = entry;
        String key = addr + "|" + (entry == null ? "" : entry.id());
        if (key.equals(reportedNamesrv)) return;
        reportedNamesrv = key;
        JSONObject data = new JSONObject();
        data.put("namesrvId", entry == null ? addr : entry.id());
        data.put("namesrvRoom", entry == null ? "" : entry.room());
        data.put("address", addr);
        data.put("reason", "java-client");
        outbox.event("namesrv-choice", spec.id, spec.room, data);
        emitChoice();
    }

    /** The `choice` frame; absent fields are left out (the engine's schema has them optional). */
    void emitChoice() {
        JSONObject c = new JSONObject();
        c.put("clientId", spec.id);
        c.put("role", spec.role);
        c.put("room", spec.room);
        NameServerDirectory.Entry ns = namesrv;
        if (ns != null) {
            c.put("namesrvId", ns.id());
            c.put("namesrvRoom", ns.room());
        }
        addBrokerChoice(c);
        outbox.choice(c);
    }

    void addBrokerChoice(JSONObject choice) {
    }

    String namesrvId() {
        NameServerDirectory.Entry ns = namesrv;
        return ns == null ? null : ns.id();
    }

    String namesrvRoom() {
        NameServerDirectory.Entry ns = namesrv;
        return ns == null ? null : ns.room();
    }

    void started() {
        alive = true;
        everStarted = true;
        observeNamesrv();
        JSONObject data = new JSONObject();
        data.put("role", spec.role);
        data.put("clientKey", cid);
        outbox.event("client-started", spec.id, spec.room, data);
    }

    /**
     * Stops the client. A crash is over the moment its sockets are cut (the event says so); the
     * stock shutdown that follows only releases threads. A graceful stop ends when shutdown returns
     * (offsets committed, unregistered), ~3 s in 5.3.3.
     */
    final void stop(String mode) {
        synchronized (this) {
            if (stopped) return;
            stopped = true;
        }
        alive = false;
        boolean crash = "crash".equals(mode);
        if (crash) {
            crashed = true;
            cutConnections();
            stoppedEvent(mode);
        }
        try {
            shutdownClient();
        } catch (RuntimeException e) {
            Log.warn(spec.id + ": shutdown: " + e);
        }
        if (!crash) stoppedEvent(mode);
    }

    /** The stock shutdown of the wrapped client. */
    abstract void shutdownClient();

    private void stoppedEvent(String mode) {
        if (!everStarted) return;
        JSONObject data = new JSONObject();
        data.put("role", spec.role);
        data.put("mode", mode);
        outbox.event("client-stopped", spec.id, spec.room, data);
    }

    /** Logs a repeated warning once per distinct message (route retries poll every 100 ms). */
    void warnOnce(String message) {
        if (message.equals(lastWarning)) return;
        lastWarning = message;
        Log.warn(spec.id + ": " + message);
    }

    private volatile String lastWarning;

    JSONObject baseState() {
        JSONObject s = new JSONObject();
        s.put("id", spec.id);
        s.put("alive", alive);
        s.put("cid", cid);
        return s;
    }

    JSONArray queues(Collection<MessageQueue> mqs) {
        JSONArray out = new JSONArray();
        if (mqs == null) return out;
        List<MessageQueue> sorted = mqs.stream().sorted().toList();
        for (MessageQueue mq : sorted) {
            JSONObject q = new JSONObject();
            q.put("brokerName", mq.getBrokerName());
            q.put("room", spec.brokerRoom(mq.getBrokerName()));
            q.put("queueId", mq.getQueueId());
            out.add(q);
        }
        return out;
    }

    /** A compact reason: the innermost cause's class and message (the outer one embeds an FAQ link). */
    static String reason(Throwable e) {
        Throwable t = e;
        String summary = null;
        while (t.getCause() != null && t.getCause() != t) {
            // The send's "Send [n] times" summary; sendMessageInTransaction wraps it once more.
            if (summary == null && t.getMessage() != null && t.getMessage().startsWith("Send [")) summary = t.getMessage();
            t = t.getCause();
        }
        String msg = t.getMessage() == null ? "" : t.getMessage().replaceAll("\\s*For more information.*$", "");
        String s = t.getClass().getSimpleName() + (msg.isEmpty() ? "" : ": " + msg);
        if (summary != null) {
            s = s + " (" + summary.replaceAll(", Topic:.*$", "").replaceAll("\\s*See http.*$", "") + ")";
        }
        return s.length() > 400 ? s.substring(0, 400) : s;
    }

    private static Field namesrvChosenField() {
        try {
            Field f = org.apache.rocketmq.remoting.netty.NettyRemotingClient.class.getDeclaredField("namesrvAddrChoosed");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            Log.warn("cannot read the Java client's chosen name server (" + e + "); namesrv columns stay null");
            return null;
        }
    }
}
