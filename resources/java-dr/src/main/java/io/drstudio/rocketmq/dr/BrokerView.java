package io.drstudio.rocketmq.dr;

import java.util.List;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A broker of a topic's route as the producer decides on it: its name, its room (null when unknown)
 * and its writable queues.
 */
public record BrokerView(String name, String room, List<MessageQueue> queues) {
    public BrokerView {
        queues = List.copyOf(queues);
    }

    /** Round-robin over the broker's queues. */
    public MessageQueue queue(int cursor) {
        return queues.get(Math.floorMod(cursor, queues.size()));
    }
}
