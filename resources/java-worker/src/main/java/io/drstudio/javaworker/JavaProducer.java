package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.hook.SendMessageContext;
import org.apache.rocketmq.client.hook.SendMessageHook;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A stock DefaultMQProducer and the ledger rows of its sends. Sends are the synchronous
 * `send(msg)` a Java application makes (the only mode with retries and a per-request timeout in
 * 5.3.3), each on a thread of a small pool so a slow broker never stalls the open-loop schedule.
 * A SendMessageHook observes every attempt (broker, start, failure) without changing anything.
 * With spec.transactional it is a stock TransactionMQProducer whose TransactionListener plays the
 * application's local transactions ({@link LocalTransactions}). Delayed sends are plain sends of a
 * 5.x timer message (the stock Message.setDeliverTimeMs).
 */
final class JavaProducer extends HostedClient {
    /** The send in progress on this thread, filled in by the hook. */
    private static final ThreadLocal<SendTrace> TRACE = new ThreadLocal<>();

    /** One send as observed: attempts counted by the hook. */
    static final class SendTrace {
        final String key;
        final boolean record;
        int attempts;
        double attemptStartedAt = Double.NaN;
        String broker;
        /** The broker address that stored the acknowledged attempt (from its offset message id). */
        SocketAddress storedBy;

        SendTrace(String key, boolean record) {
            this.key = key;
            this.record = record;
        }
    }

    /** The outcome of one send, for warm-up and the schedule. */
    record Outcome(boolean acked, int attempts, double startedAt, double endedAt) {
    }

    /** Ordered sends waiting behind the send in progress of their key; a key is here while one runs. */
    private final Map<String, ArrayDeque<Runnable>> keyQueues = new HashMap<>();
    private final FailoverTracker failover = new FailoverTracker();
    private final AtomicInteger threadSeq = new AtomicInteger();
    /** Transactional producers: each message's local-transaction outcome by key, for check-backs. */
    private final LocalTransactions localTransactions = new LocalTransactions(data -> {
        // Cut sockets carry no answer: after a crash-stop a check is not recorded.
        if (!crashed) outbox.event("transaction-checked", spec.id, spec.room, data);
    });
    private DefaultMQProducer producer;
    /** Ordered sends: the textbook key hash, or on java-dr the extension's room-keeping selector. */
    private MessageQueueSelector orderSelector = KeyHashSelector.INSTANCE;
    private ThreadPoolExecutor pool;
    private String lastBroker;

    JavaProducer(ClientSpec spec, Outbox outbox, NameServerDirectory directory, int generation) {
        super(spec, outbox, directory, generation);
    }

    @Override
    void start(long timeoutMs) throws Exception {
        DefaultMQProducer p = spec.lane == Lane.JAVA_DR ? DrClients.producer(spec, outbox)
            : spec.transactional ? transactionalProducer() : new DefaultMQProducer(spec.group);
        p.setInstanceName(instanceName);
        p.setUnitName(unitName());
        if (spec.managementNodes.isEmpty()) p.setNamesrvAddr(spec.staticNamesrvAddr());
        spec.lane.applyProducer(spec, p);
        impl(p).registerSendMessageHook(new AttemptHook());
        producer = p;
        if (spec.lane == Lane.JAVA_DR) orderSelector = DrClients.orderSelector(spec, p);
        pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, spec.id + "-send-" + threadSeq.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        p.start();
        cid = impl(p).getMqClientFactory().getClientId();
        awaitRoute(timeoutMs);
        started();
    }

    /** The same group and settings as a plain producer; our listener runs its local transactions. */
    private TransactionMQProducer transactionalProducer() {
        TransactionMQProducer p = new TransactionMQProducer(spec.group);
        p.setTransactionListener(localTransactions);
        return p;
    }

    /**
     * What the first send would do (tryToFindTopicPublishInfo): ask the name server for the topic's
     * route, until it has writable queues.
     */
    private void awaitRoute(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        MQClientInstance f = factory();
        while (true) {
            try {
                f.updateTopicRouteInfoFromNameServer(spec.topic);
            } catch (RuntimeException e) {
                warnOnce("route query: " + e);
            }
            TopicPublishInfo info = impl(producer).getTopicPublishInfoTable().get(spec.topic);
            if (info != null && info.ok()) return;
            if (System.currentTimeMillis() > deadline) {
                throw new WorkerException("no-route", "producer " + spec.id + " got no route for topic " + spec.topic
                    + " within " + timeoutMs + " ms (name servers: " + f.getMQClientAPIImpl().getNameServerAddressList()
                    + "); check that the topic exists" + (spec.lane == Lane.JAVA_ZONE
                        ? " on a broker of zone " + spec.room : "") + " and that the name servers are up");
            }
            Thread.sleep(100);
        }
    }

    /** Queues a send on the pool; false if the pool refused it (the worker is stopping). */
    boolean submit(Runnable send) {
        ThreadPoolExecutor p = pool;
        if (p == null || !alive) return false;
        try {
            p.execute(send);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /**
     * Queues an ordered send behind the sends of its key, so a key's messages go one at a time in
     * schedule order, as an application sending each key from one thread does. False if the pool
     * refused to start the key's sends (the worker is stopping).
     */
    boolean submitOrdered(String orderKey, Runnable send) {
        synchronized (keyQueues) {
            ArrayDeque<Runnable> waiting = keyQueues.get(orderKey);
            if (waiting != null) {
                waiting.add(send);
                return true;
            }
            keyQueues.put(orderKey, new ArrayDeque<>());
        }
        boolean started = submit(() -> {
            try {
                send.run();
            } finally {
                drain(orderKey);
            }
        });
        if (!started) {
            // Sends queued meanwhile run here, so their in-flight counts are released.
            drain(orderKey);
        }
        return started;
    }

    private void drain(String orderKey) {
        while (true) {
            Runnable next;
            synchronized (keyQueues) {
                next = keyQueues.get(orderKey).poll();
                if (next == null) {
                    keyQueues.remove(orderKey);
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                // One failed send must not strand the key's later ones (and their in-flight counts).
                warnOnce("ordered send of " + orderKey + ": " + e);
            }
        }
    }

    /** One synchronous send; records its `s` row (and events) when `record`. */
    Outcome send(String key, String tag, byte[] body, Double scheduledAt, boolean record) {
        return send(key, tag, body, scheduledAt, record, null, -1);
    }

    /**
     * One synchronous send; with an `orderKey`, through the order selector (one attempt: the
     * stock client does not retry selector sends), carrying the key and its sequence in its row.
     */
    Outcome send(String key, String tag, byte[] body, Double scheduledAt, boolean record, String orderKey, long orderSeq) {
        return send(key, tag, body, scheduledAt, record, orderKey, orderSeq, null, null);
    }

    /**
     * One recorded delayed send: a plain send (with its retries) of a timer message the broker holds
     * until `dueAt` (epoch ms), carrying `dueAt` in its row.
     */
    Outcome sendDelayed(String key, String tag, byte[] body, Double scheduledAt, long dueAt) {
        return send(key, tag, body, scheduledAt, true, null, -1, null, dueAt);
    }

    /**
     * One recorded transactional send (sendMessageInTransaction: the half message, the local
     * transaction as `plan` says, then its end), carrying the decision and how it ended in its row.
     */
    Outcome sendInTransaction(String key, String tag, byte[] body, Double scheduledAt, TransactionPlan plan) {
        return send(key, tag, body, scheduledAt, true, null, -1, plan, null);
    }

    private Outcome send(String key, String tag, byte[] body, Double scheduledAt, boolean record,
        String orderKey, long orderSeq, TransactionPlan plan, Long dueAt) {
        SendTrace trace = new SendTrace(key, record);
        Message msg = new Message(spec.topic, tag, key, body);
        // A 5.x timer message: the stock setter puts TIMER_DELIVER_MS, which the broker holds it until.
        if (dueAt != null) msg.setDeliverTimeMs(dueAt);
        double startedAt = Clock.now();
        TRACE.set(trace);
        SendResult result = null;
        Exception error = null;
        try {
            result = plan != null ? transactional().sendMessageInTransaction(msg, plan)
                : orderKey == null ? producer.send(msg) : producer.send(msg, orderSelector, orderKey);
        } catch (Exception e) {
            error = e;
            if (plan != null) localTransactions.sendFailed(key);
        } finally {
            TRACE.remove();
        }
        double endedAt = Clock.now();
        boolean acked = result != null;
        if (plan != null && acked) localTransactions.stored(key, trace.storedBy);
        if (record) {
            JSONObject row = acked
                ? recordAck(trace, result, scheduledAt, startedAt, endedAt)
                : recordFailure(trace, error, scheduledAt, startedAt, endedAt);
            if (orderKey != null) {
                row.put("orderKey", orderKey);
                row.put("orderSeq", orderSeq);
            }
            if (plan != null) addTransaction(row, plan, result);
            if (dueAt != null) row.put("dueAt", dueAt);
            outbox.row(row);
        }
        return new Outcome(acked, trace.attempts, startedAt, endedAt);
    }

    /** The address of the broker that stored a message, from its offset message id; null if unreadable. */
    private static SocketAddress storeHostOf(SendResult result) {
        try {
            return result == null || result.getOffsetMsgId() == null ? null
                : MessageDecoder.decodeMessageId(result.getOffsetMsgId()).getAddress();
        } catch (RuntimeException | UnknownHostException e) {
            return null;
        }
    }

    /** The producer as a TransactionMQProducer; a plain one cannot send a transactional message. */
    private TransactionMQProducer transactional() {
        if (producer instanceof TransactionMQProducer t) return t;
        throw new IllegalStateException("producer " + spec.id + " was created without spec.transactional");
    }

    /**
     * txDecision (the plan's) and txEnd: "end" when the producer ended the transaction itself, "check"
     * when it left that to a check-back, "client-rollback" when the broker stored the half message
     * with a warning (FLUSH_*_TIMEOUT, SLAVE_NOT_AVAILABLE) and the stock client rolled it back
     * without running the local transaction (apache/rocketmq#3885); null when the send failed.
     */
    private static void addTransaction(JSONObject row, TransactionPlan plan, SendResult result) {
        row.put("txDecision", plan.decisionName());
        row.put("txEnd", result == null ? null
            : result.getSendStatus() != SendStatus.SEND_OK ? "client-rollback" : plan.viaCheck() ? "check" : "end");
    }

    private JSONObject recordAck(SendTrace t, SendResult r, Double scheduledAt, double startedAt, double endedAt) {
        MessageQueue mq = r.getMessageQueue();
        String broker = mq.getBrokerName();
        String room = spec.brokerRoom(broker);
        double attemptStart = Double.isNaN(t.attemptStartedAt) ? startedAt : t.attemptStartedAt;
        FailoverTracker.Failover f = failover.succeeded(broker, room, attemptStart, endedAt);
        if (f != null) {
            JSONObject data = new JSONObject();
            data.put("from", f.from());
            data.put("fromRoom", f.fromRoom());
            data.put("to", f.to());
            data.put("toRoom", f.toRoom());
            data.put("reason", f.reason());
            data.put("durationMs", f.durationMs());
            data.put("key", t.key);
            outbox.event("broker-failover", spec.id, spec.room, data);
        }
        noteBroker(broker, room, f != null);
        JSONObject row = sendRow(t.key, scheduledAt, startedAt, attemptStart, endedAt);
        row.put("brokerName", broker);
        row.put("brokerRoom", room);
        row.put("queueId", mq.getQueueId());
        row.put("queueOffset", r.getQueueOffset());
        row.put("status", "acked");
        row.put("attempts", Math.max(1, t.attempts));
        // FLUSH_*_TIMEOUT / SLAVE_NOT_AVAILABLE: stored, with a warning the application would see.
        row.put("error", r.getSendStatus() == SendStatus.SEND_OK ? null : r.getSendStatus().name());
        return row;
    }

    private JSONObject recordFailure(SendTrace t, Exception e, Double scheduledAt, double startedAt, double endedAt) {
        String reason = e == null ? "no result" : reason(e);
        JSONObject row = sendRow(t.key, scheduledAt, startedAt,
            Double.isNaN(t.attemptStartedAt) ? null : t.attemptStartedAt, endedAt);
        row.put("brokerName", t.broker);
        row.put("brokerRoom", spec.brokerRoom(t.broker));
        row.put("queueId", null);
        row.put("queueOffset", null);
        row.put("status", "failed");
        row.put("attempts", t.attempts);
        row.put("error", reason);
        JSONObject data = new JSONObject();
        data.put("key", t.key);
        data.put("reason", reason);
        data.put("attempts", t.attempts);
        outbox.event("send-failed", spec.id, spec.room, data);
        return row;
    }

    private JSONObject sendRow(String key, Double scheduledAt, double startedAt, Double attemptStartedAt, double endedAt) {
        JSONObject row = new JSONObject();
        row.put("k", "s");
        row.put("key", key);
        row.put("clientId", spec.id);
        row.put("clientRoom", spec.room);
        row.put("namesrvId", namesrvId());
        row.put("namesrvRoom", namesrvRoom());
        row.put("scheduledAt", scheduledAt);
        row.put("startedAt", startedAt);
        row.put("attemptStartedAt", attemptStartedAt);
        row.put("endedAt", endedAt);
        return row;
    }

    /** broker-choice when the acked broker changes (stock Java rotates over every queue of the route). */
    private void noteBroker(String broker, String room, boolean afterFailover) {
        synchronized (this) {
            if (broker.equals(lastBroker)) return;
            String reason = lastBroker == null ? "first-send" : afterFailover ? "failover" : "queue-rotation";
            lastBroker = broker;
            JSONObject data = new JSONObject();
            data.put("brokerName", broker);
            data.put("brokerRoom", room);
            data.put("reason", reason);
            outbox.event("broker-choice", spec.id, spec.room, data);
        }
        emitChoice();
    }

    @Override
    void addBrokerChoice(JSONObject choice) {
        String b;
        synchronized (this) {
            b = lastBroker;
        }
        if (b == null) return;
        choice.put("brokerName", b);
        String room = spec.brokerRoom(b);
        if (room != null) choice.put("brokerRoom", room);
    }

    /** Brokers the latency fault strategy currently avoids (always none unless it is enabled). */
    List<String> isolated() {
        List<String> out = new ArrayList<>();
        DefaultMQProducer p = producer;
        if (p == null || !impl(p).isSendLatencyFaultEnable()) return out;
        TopicPublishInfo info = impl(p).getTopicPublishInfoTable().get(spec.topic);
        if (info == null) return out;
        TreeSet<String> seen = new TreeSet<>();
        for (MessageQueue mq : info.getMessageQueueList()) {
            if (seen.add(mq.getBrokerName())
                && !impl(p).getMqFaultStrategy().getAvailableFilter().filter(mq)) {
                out.add(mq.getBrokerName());
            }
        }
        return out;
    }

    @Override
    void shutdownClient() {
        // A TransactionMQProducer's shutdown also stops its check-back executor.
        if (producer != null) producer.shutdown();
        if (pool != null) pool.shutdown();
    }

    @Override
    JSONObject state() {
        JSONObject s = baseState();
        JSONArray iso = new JSONArray();
        iso.addAll(isolated());
        s.put("isolated", iso);
        return s;
    }

    @Override
    MQClientInstance factory() {
        DefaultMQProducer p = producer;
        return p == null ? null : impl(p).getMqClientFactory();
    }

    /**
     * The producer's internals (hooks, route table, fault strategy): deprecated for applications,
     * and read here only to observe, never to steer.
     */
    @SuppressWarnings("deprecation")
    private static DefaultMQProducerImpl impl(DefaultMQProducer p) {
        return p.getDefaultMQProducerImpl();
    }

    /** Counts attempts and reports failed ones; the hook runs on the sending thread. */
    private final class AttemptHook implements SendMessageHook {
        @Override
        public String hookName() {
            return "drstudio-attempts";
        }

        @Override
        public void sendMessageBefore(SendMessageContext ctx) {
            SendTrace t = TRACE.get();
            if (t == null) return;
            t.attempts++;
            t.attemptStartedAt = Clock.now();
            t.broker = ctx.getMq() == null ? null : ctx.getMq().getBrokerName();
        }

        @Override
        public void sendMessageAfter(SendMessageContext ctx) {
            SendTrace t = TRACE.get();
            if (t == null) return;
            if (ctx.getException() == null) {
                // The attempt's own result still has the offset message id (a TransactionSendResult
                // does not): the store host a check-back for this half message will carry.
                t.storedBy = storeHostOf(ctx.getSendResult());
                return;
            }
            if (!t.record) return;
            String reason = reason(ctx.getException());
            String room = spec.brokerRoom(t.broker);
            failover.failed(t.broker, room, reason, t.attemptStartedAt);
            JSONObject data = new JSONObject();
            data.put("key", t.key);
            data.put("brokerName", t.broker);
            data.put("brokerRoom", room);
            data.put("reason", reason);
            data.put("startMs", t.attemptStartedAt);
            data.put("endMs", Clock.now());
            outbox.event("send-attempt-failed", spec.id, spec.room, data);
        }
    }
}
