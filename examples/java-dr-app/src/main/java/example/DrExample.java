package example;

import io.drstudio.rocketmq.dr.NameServerEntry;
import io.drstudio.rocketmq.dr.NameServerSelection;
import io.drstudio.rocketmq.dr.RoomAwareConfig;
import io.drstudio.rocketmq.dr.RoomAwareListener;
import io.drstudio.rocketmq.dr.RoomAwareProducer;
import io.drstudio.rocketmq.dr.RoomAwarePushConsumer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A producer and a consumer in one room, built with the room-aware extension, printing one line per
 * send, delivery and decision, so a failover can be watched:
 *
 * <pre>
 * java -cp ... example.DrExample --room room1 \
 *     --management room1=http://198.18.1.4:8080,room2=http://198.18.2.4:8080 \
 *     --topic orders --seconds 60 [--rate 10] [--group example] [--drain 5]
 * </pre>
 */
public final class DrExample {
    private DrExample() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = options(args);
        String room = required(opt, "room");
        String topic = opt.getOrDefault("topic", "orders");
        int seconds = Integer.parseInt(opt.getOrDefault("seconds", "60"));
        int rate = Integer.parseInt(opt.getOrDefault("rate", "10"));

        RoomAwareConfig.Builder b = RoomAwareConfig.builder(room).listener(new Printer());
        for (String pair : required(opt, "management").split(",")) {
            String[] kv = pair.split("=", 2);
            if (kv.length != 2) throw new IllegalArgumentException("--management takes room=url,room=url; got " + pair);
            b.managementNode(kv[0], kv[1]);
        }
        RoomAwareConfig config = b.build();

        RoomAwarePushConsumer consumer = new RoomAwarePushConsumer(opt.getOrDefault("group", "example") + "-consumer", config);
        AtomicInteger received = new AtomicInteger();
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                received.incrementAndGet();
                System.out.println("received key=" + m.getKeys() + " broker=" + ctx.getMessageQueue().getBrokerName());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();

        RoomAwareProducer producer = new RoomAwareProducer(opt.getOrDefault("group", "example") + "-producer", config);
        producer.start();
        int sent = 0;
        int failed = 0;
        long end = System.currentTimeMillis() + seconds * 1000L;
        for (int i = 0; System.currentTimeMillis() < end; i++) {
            String key = room + "-" + i;
            long t0 = System.currentTimeMillis();
            try {
                SendResult r = producer.send(new Message(topic, "*", key, ("hello " + i).getBytes(StandardCharsets.UTF_8)));
                sent++;
                System.out.println("sent key=" + key + " broker=" + r.getMessageQueue().getBrokerName() + " ms="
                    + (System.currentTimeMillis() - t0));
            } catch (Exception e) {
                failed++;
                System.out.println("failed key=" + key + " error=" + e);
            }
            Thread.sleep(Math.max(0, 1000 / rate - (System.currentTimeMillis() - t0)));
        }
        // Let the consumer catch up before leaving (a dead broker's messages wait for its return).
        int drainSeconds = Integer.parseInt(opt.getOrDefault("drain", "5"));
        for (int w = 0; w < drainSeconds * 10 && received.get() < sent; w++) Thread.sleep(100);
        producer.shutdown();
        consumer.shutdown();
        System.out.println("summary sent=" + sent + " failed=" + failed + " received=" + received.get());
    }

    /** Prints every decision of the extension, one line each. */
    private static final class Printer implements RoomAwareListener {
        @Override
        public void nameServersChanged(NameServerSelection s, List<NameServerEntry> entries, String from, boolean fallback) {
            System.out.println("nameservers " + s.joined() + " (" + s.reason().wire + ", from room " + from + "'s management node)");
        }

        @Override
        public void managementChanged(String answeringRoom, String ownRoomError) {
            System.out.println("management answering=" + answeringRoom + (ownRoomError == null ? "" : " own-room-error=" + ownRoomError));
        }

        @Override
        public void brokerChosen(String topic, String brokerName, String brokerRoom, String reason) {
            System.out.println("broker " + brokerName + " (" + brokerRoom + ", " + reason + ")");
        }

        @Override
        public void brokerIsolated(String brokerName, String brokerRoom, long isolatedForMs, Throwable cause) {
            System.out.println("isolated " + brokerName + " (" + brokerRoom + ") for " + isolatedForMs + " ms: " + cause);
        }

        @Override
        public void failedOver(String topic, String from, String fromRoom, String to, String toRoom) {
            System.out.println("failover " + from + " (" + fromRoom + ") -> " + to + " (" + toRoom + ")");
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) throw new IllegalArgumentException("expected --name value, got " + args[i]);
            out.put(args[i].substring(2), args[i + 1]);
        }
        return out;
    }

    private static String required(Map<String, String> opt, String name) {
        String v = opt.get(name);
        if (v == null) throw new IllegalArgumentException("--" + name + " is required (see the README of this example)");
        return v;
    }
}
