package io.drstudio.rocketmq.dr;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.rocketmq.client.Validators;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.exception.RemotingException;

/**
 * A drop-in {@link DefaultMQProducer} that sends in its own room (claims 1 to 4): {@code send},
 * async {@code send} and {@code sendOneway} choose a queue of a healthy broker of the client's
 * room, fall back to another room's when none is left or an attempt fails, isolate a failed broker
 * for a short adaptive time, and retry within the send timeout. While a broker of its room is
 * healthy it never sends across rooms. The name-server list follows the room's management node
 * ({@link NameServerPoller}). Ordered sends keep their room through {@link #orderSelector} and wait
 * behind an unanswered send of their key ({@link OrderFences}); sends
 * to a queue or through another selector, batches, requests and transactions are the stock
 * client's, unchanged.
 *
 * <pre>{@code
 * RoomAwareConfig dr = RoomAwareConfig.builder("room1")
 *     .managementNode("room1", "http://10.1.0.9:8080")
 *     .managementNode("room2", "http://10.2.0.9:8080")
 *     .build();
 * DefaultMQProducer producer = new RoomAwareProducer("orders", dr);
 * producer.start();
 * }</pre>
 */
public class RoomAwareProducer extends DefaultMQProducer {
    private final RoomAwareConfig config;
    private final BrokerIsolation isolation;
    private final NameServerPoller poller;
    private final SendAttempts.Shared shared;
    private final Map<String, Cached> routes = new ConcurrentHashMap<>();
    private final LongSupplier clock;

    private record Cached(TopicPublishInfo info, List<BrokerView> brokers) {
    }

    public RoomAwareProducer(String producerGroup, RoomAwareConfig config) {
        this(producerGroup, config, ManagementSource.HTTP, System::currentTimeMillis);
    }

    RoomAwareProducer(String producerGroup, RoomAwareConfig config, ManagementSource source, LongSupplier clock) {
        super(producerGroup);
        this.config = config;
        this.clock = clock;
        this.isolation = new BrokerIsolation(config.isolationBaseMs(), config.isolationMaxMs(), config.requestTimeoutMs(), clock);
        this.poller = config.managementNodes().isEmpty() ? null : new NameServerPoller(config, source);
        this.shared = new SendAttempts.Shared(config, isolation, this::brokersOf, clock, getRetryResponseCodes(),
            this::failPendingOn);
        // A broker that left the name server's route leaves the client's within a second (stock 30 s).
        setPollNameServerInterval((int) config.routePollMs());
        setHeartbeatBrokerInterval((int) config.heartbeatMs());
    }

    public RoomAwareConfig roomAwareConfig() {
        return config;
    }

    /** Brokers this producer currently keeps away from. */
    public BrokerIsolation isolation() {
        return isolation;
    }

    /** The name-server poller, or null when the config names no management node. */
    public NameServerPoller nameServerPoller() {
        return poller;
    }

    /**
     * A selector for {@code send(msg, selector, key)} that keeps each key's queue in this producer's
     * room and still there after a broker leaves the route ({@link RoomOrderSelector}); one per
     * producer, since it remembers each topic's home queues.
     */
    public RoomOrderSelector orderSelector(RoomOrderSelector.Policy policy) {
        return new RoomOrderSelector(config.room(), policy, this::roomOfQueue,
            new OrderFences(OrderFences.FENCE_MS, clock, Thread::sleep));
    }

    /** Through a {@code WAIT} {@link RoomOrderSelector}: behind the key's order fence ({@link OrderFences}). */
    @Override
    public SendResult send(Message msg, MessageQueueSelector selector, Object arg)
        throws MQClientException, RemotingException, MQBrokerException, InterruptedException {
        if (fencesOf(selector) == null) return super.send(msg, selector, arg);
        return send(msg, selector, arg, getSendMsgTimeout());
    }

    /** Through a {@code WAIT} {@link RoomOrderSelector}: behind the key's order fence ({@link OrderFences}). */
    @Override
    public SendResult send(Message msg, MessageQueueSelector selector, Object arg, long timeout)
        throws MQClientException, RemotingException, MQBrokerException, InterruptedException {
        OrderFences fences = fencesOf(selector);
        if (fences == null) return super.send(msg, selector, arg, timeout);
        try {
            // The topic as sent (with the namespace): the stock send adds it to the message itself.
            String key = withNamespace(msg.getTopic()) + '/' + arg;
            return fences.send(key, timeout, left -> super.send(msg, selector, arg, left));
        } catch (MQClientException | RemotingException | MQBrokerException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new MQClientException("ordered send failed", e);
        }
    }

    private static OrderFences fencesOf(MessageQueueSelector selector) {
        return selector instanceof RoomOrderSelector s && s.policy() == RoomOrderSelector.Policy.WAIT ? s.fences() : null;
    }

    /** A queue's room from the route (its broker's zone) or the configured map; null when unknown. */
    private String roomOfQueue(MessageQueue mq) {
        try {
            for (BrokerView b : brokersOf(mq.getTopic())) if (b.name().equals(mq.getBrokerName())) return b.room();
        } catch (MQClientException e) {
            // Not started yet: only the configured map can tell.
        }
        return config.brokerRoom(mq.getBrokerName(), null);
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

    @Override
    public SendResult send(Message msg) throws MQClientException, RemotingException, MQBrokerException, InterruptedException {
        return send(msg, (long) getSendMsgTimeout());
    }

    @Override
    public SendResult send(Message msg, long timeout)
        throws MQClientException, RemotingException, MQBrokerException, InterruptedException {
        Validators.checkMessage(msg, this);
        SendAttempts attempts = new SendAttempts(shared, withNamespace(msg.getTopic()), timeout);
        while (true) {
            SendAttempts.Attempt a = attempts.next();
            if (a == null) throw rethrow(attempts.failure());
            try {
                SendResult r = super.send(msg, a.queue(), a.timeoutMs());
                attempts.succeeded(a);
                return r;
            } catch (MQClientException | RemotingException | MQBrokerException e) {
                attempts.failed(a, e);
            }
        }
    }

    @Override
    public void send(Message msg, SendCallback sendCallback) throws MQClientException, RemotingException, InterruptedException {
        send(msg, sendCallback, getSendMsgTimeout());
    }

    @Override
    public void send(Message msg, SendCallback sendCallback, long timeout)
        throws MQClientException, RemotingException, InterruptedException {
        Validators.checkMessage(msg, this);
        new AsyncSend(msg, sendCallback, new SendAttempts(shared, withNamespace(msg.getTopic()), timeout)).next();
    }

    /**
     * Best effort, as oneway is in the stock client: isolated brokers are skipped and a send that
     * throws tries the next broker, but the stock client connects and writes a oneway request in the
     * background, so a dead broker's refused connection is never seen here and that message is lost.
     */
    @Override
    public void sendOneway(Message msg) throws MQClientException, RemotingException, InterruptedException {
        Validators.checkMessage(msg, this);
        SendAttempts attempts = new SendAttempts(shared, withNamespace(msg.getTopic()), getSendMsgTimeout());
        while (true) {
            SendAttempts.Attempt a = attempts.next();
            if (a == null) {
                Exception e = attempts.failure();
                if (e instanceof RemotingException re) throw re;
                throw e instanceof MQClientException ce ? ce : new MQClientException("oneway send failed", e);
            }
            try {
                super.sendOneway(msg, a.queue());
                return;
            } catch (MQClientException | RemotingException e) {
                try {
                    attempts.failed(a, e);
                } catch (MQBrokerException cannotHappen) {
                    // Only a broker's answer is an MQBrokerException, and oneway gets none.
                    throw new MQClientException("oneway send failed", cannotHappen);
                }
            }
        }
    }

    /**
     * The async attempts: each failure (in the client's callback thread) starts the next. Every
     * attempt sends its own copy of the message, since the previous attempt's thread may still be
     * restoring the body and topic of the one it sent, and hears only its first outcome: the stock
     * client can report one attempt's failure twice (invokeAsync with a spent timeout).
     */
    private final class AsyncSend {
        private final Message msg;
        private final SendCallback callback;
        private final SendAttempts attempts;

        AsyncSend(Message msg, SendCallback callback, SendAttempts attempts) {
            this.msg = msg;
            this.callback = callback;
            this.attempts = attempts;
        }

        void next() {
            SendAttempts.Attempt a;
            try {
                a = attempts.next();
            } catch (MQClientException e) {
                callback.onException(e);
                return;
            }
            if (a == null) {
                callback.onException(attempts.failure());
                return;
            }
            Outcome outcome = new Outcome(a);
            try {
                RoomAwareProducer.super.send(MessageAccessor.cloneMessage(msg), a.queue(), outcome, a.timeoutMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome.onException(e);
            } catch (MQClientException | RemotingException | RuntimeException e) {
                outcome.onException(e);
            }
        }

        /** One attempt's outcome, first report wins. */
        private final class Outcome implements SendCallback {
            private final SendAttempts.Attempt attempt;
            private final AtomicBoolean reported = new AtomicBoolean();

            Outcome(SendAttempts.Attempt attempt) {
                this.attempt = attempt;
            }

            @Override
            public void onSuccess(SendResult result) {
                if (!reported.compareAndSet(false, true)) return;
                attempts.succeeded(attempt);
                callback.onSuccess(result);
            }

            @Override
            public void onException(Throwable e) {
                if (!reported.compareAndSet(false, true)) return;
                if (!(e instanceof Exception ex) || e instanceof InterruptedException) {
                    callback.onException(e);
                    return;
                }
                try {
                    attempts.failed(attempt, ex);
                } catch (MQBrokerException refused) {
                    callback.onException(refused);
                    return;
                }
                next();
            }
        }
    }

    /** A broker refused a connection: requests still waiting on it fail now instead of at their timeout. */
    private void failPendingOn(String brokerName) {
        MQClientInstance f = impl().getMqClientFactory();
        if (f != null) PendingRequests.failAll(f, f.findBrokerAddressInPublish(brokerName));
    }

    /** The topic's brokers with writable queues, from the client's route table (asked once when absent). */
    private List<BrokerView> brokersOf(String topic) throws MQClientException {
        DefaultMQProducerImpl impl = impl();
        TopicPublishInfo info = impl.getTopicPublishInfoTable().get(topic);
        if (info == null || !info.ok()) {
            factory().updateTopicRouteInfoFromNameServer(topic);
            info = impl.getTopicPublishInfoTable().get(topic);
        }
        if (info == null || !info.ok()) return List.of();
        Cached c = routes.get(topic);
        if (c != null && c.info() == info) return c.brokers();
        List<BrokerView> brokers = RouteRooms.brokersOf(info.getMessageQueueList(),
            RouteRooms.roomsOf(info.getTopicRouteData(), config), config);
        routes.put(topic, new Cached(info, brokers));
        return brokers;
    }

    private MQClientInstance factory() throws MQClientException {
        MQClientInstance f = impl().getMqClientFactory();
        if (f == null) throw new MQClientException("producer " + getProducerGroup() + " is not started; call start() first", null);
        return f;
    }

    /** The client's internals, read for routes and the name-server list only. */
    @SuppressWarnings("deprecation")
    private DefaultMQProducerImpl impl() {
        return getDefaultMQProducerImpl();
    }

    /** Throws {@code e} as the type {@code send} declares; a client exception is returned for the caller to throw. */
    private static MQClientException rethrow(Exception e) throws RemotingException, MQBrokerException {
        if (e instanceof RemotingException re) throw re;
        if (e instanceof MQBrokerException be) throw be;
        return e instanceof MQClientException ce ? ce : new MQClientException("send failed", e);
    }
}
