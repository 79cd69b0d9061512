package io.drstudio.javaworker;

import java.util.List;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The textbook MessageQueueSelector (the RocketMQ ordered-message example): the key's hash over
 * the route's queues, every room's, in the order the client lists them. When a broker leaves the
 * route the list shrinks and keys move to other queues (apache/rocketmq#569).
 */
final class KeyHashSelector implements MessageQueueSelector {
    static final KeyHashSelector INSTANCE = new KeyHashSelector();

    @Override
    public MessageQueue select(List<MessageQueue> mqs, Message msg, Object arg) {
        return mqs.get(Math.floorMod(arg.hashCode(), mqs.size()));
    }
}
