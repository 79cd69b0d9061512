package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl;
import org.apache.rocketmq.client.impl.consumer.ProcessQueue;
import org.apache.rocketmq.client.impl.consumer.RebalanceImpl;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A stock DefaultMQPushConsumer (clustering, concurrently, CONSUME_FROM_LAST_OFFSET, offsets
 * committed every 5 s and at shutdown) recording one `d` row per delivery. Offsets are left to the
 * client's own schedule: the duplicates that causes are what the baseline measures. For an ordered
 * workload it consumes orderly (MessageListenerOrderly: a queue at a time under its broker lock,
 * renewed every 20 s), as applications consuming ordered messages do.
 */
final class JavaConsumer extends HostedClient {
    private DefaultMQPushConsumer consumer;

    JavaConsumer(ClientSpec spec, Outbox outbox, NameServerDirectory directory, int generation) {
        super(spec, outbox, directory, generation);
    }

    @Override
    void start(long timeoutMs) throws Exception {
        DefaultMQPushConsumer c = spec.lane == Lane.JAVA_DR ? DrClients.consumer(spec, outbox)
            : new DefaultMQPushConsumer(spec.group);
        c.setInstanceName(instanceName);
        c.setUnitName(unitName());
        if (spec.managementNodes.isEmpty()) c.setNamesrvAddr(spec.staticNamesrvAddr());
        c.subscribe(spec.topic, spec.tag);
        spec.lane.applyConsumer(spec, c);
        // After a crash-stop nothing more is delivered, though consume threads may still hold
        // messages. They are not acknowledged either: a success would move the in-memory offset
        // past them, and a pull already in flight can still commit it, so the room's peer would
        // never get a message that no one recorded.
        if (spec.orderly) {
            c.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
                if (crashed) return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
                for (MessageExt m : msgs) delivered(m, ctx.getMessageQueue());
                return ConsumeOrderlyStatus.SUCCESS;
            });
        } else {
            c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                if (crashed) return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                for (MessageExt m : msgs) delivered(m, ctx.getMessageQueue());
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        }
        consumer = c;
        c.start();
        cid = factory().getClientId();
        awaitRoute(timeoutMs);
        started();
    }

    private void awaitRoute(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            Set<MessageQueue> mqs = rebalance(consumer)
                .getTopicSubscribeInfoTable().get(spec.topic);
            if (mqs != null && !mqs.isEmpty()) return;
            if (System.currentTimeMillis() > deadline) {
                throw new WorkerException("no-route", "consumer " + spec.id + " got no route for topic " + spec.topic
                    + " within " + timeoutMs + " ms (name servers: "
                    + factory().getMQClientAPIImpl().getNameServerAddressList()
                    + "); check that the topic exists" + (spec.lane == Lane.JAVA_ZONE
                        ? " on a broker of zone " + spec.room : "") + " and that the name servers are up");
            }
            try {
                factory().updateTopicRouteInfoFromNameServer(spec.topic);
            } catch (RuntimeException e) {
                warnOnce("route query: " + e);
            }
            Thread.sleep(100);
        }
    }

    private void delivered(MessageExt m, MessageQueue mq) {
        String broker = mq != null ? mq.getBrokerName() : m.getBrokerName();
        JSONObject row = new JSONObject();
        row.put("k", "d");
        row.put("key", m.getKeys() != null ? m.getKeys() : m.getMsgId());
        row.put("clientId", spec.id);
        row.put("clientRoom", spec.room);
        row.put("namesrvRoom", namesrvRoom());
        row.put("brokerName", broker);
        row.put("brokerRoom", spec.brokerRoom(broker));
        row.put("queueId", m.getQueueId());
        row.put("queueOffset", m.getQueueOffset());
        row.put("bornAt", (double) m.getBornTimestamp());
        row.put("deliveredAt", Clock.now());
        outbox.row(row);
    }

    @Override
    void shutdownClient() {
        if (consumer != null) consumer.shutdown();
    }

    @Override
    JSONObject state() {
        JSONObject s = baseState();
        DefaultMQPushConsumer c = consumer;
        if (c == null) {
            s.put("assignment", queues(null));
            s.put("readableQueues", queues(null));
            return s;
        }
        List<MessageQueue> held = new ArrayList<>();
        for (Map.Entry<MessageQueue, ProcessQueue> e
            : rebalance(c).getProcessQueueTable().entrySet()) {
            if (!e.getValue().isDropped() && e.getKey().getTopic().equals(spec.topic)) held.add(e.getKey());
        }
        s.put("assignment", queues(alive ? held : null));
        s.put("readableQueues", queues(
            rebalance(c).getTopicSubscribeInfoTable().get(spec.topic)));
        return s;
    }

    @Override
    MQClientInstance factory() {
        DefaultMQPushConsumer c = consumer;
        return c == null ? null : impl(c).getmQClientFactory();
    }

    /** The consumer's internals (rebalance tables), read only to observe them. */
    @SuppressWarnings("deprecation")
    private static DefaultMQPushConsumerImpl impl(DefaultMQPushConsumer c) {
        return c.getDefaultMQPushConsumerImpl();
    }

    private static RebalanceImpl rebalance(DefaultMQPushConsumer c) {
        return impl(c).getRebalanceImpl();
    }
}
