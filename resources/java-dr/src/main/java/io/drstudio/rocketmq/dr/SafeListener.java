package io.drstudio.rocketmq.dr;

import java.util.List;
import org.apache.rocketmq.logging.org.slf4j.Logger;
import org.apache.rocketmq.logging.org.slf4j.LoggerFactory;

/**
 * The application's listener, with its exceptions logged instead of thrown: a listener runs inside
 * a send (after the broker stored the message) or the client's callback thread, where a throw would
 * fail a stored send or swallow the application's callback.
 */
final class SafeListener implements RoomAwareListener {
    private static final Logger LOG = LoggerFactory.getLogger(SafeListener.class);
    private final RoomAwareListener inner;

    SafeListener(RoomAwareListener inner) {
        this.inner = inner;
    }

    @Override
    public void nameServersChanged(NameServerSelection selection, List<NameServerEntry> entries, String managementRoom,
        boolean managementFallback) {
        safely("nameServersChanged", () -> inner.nameServersChanged(selection, entries, managementRoom, managementFallback));
    }

    @Override
    public void managementChanged(String answeringRoom, String ownRoomError) {
        safely("managementChanged", () -> inner.managementChanged(answeringRoom, ownRoomError));
    }

    @Override
    public void brokerChosen(String topic, String brokerName, String brokerRoom, String reason) {
        safely("brokerChosen", () -> inner.brokerChosen(topic, brokerName, brokerRoom, reason));
    }

    @Override
    public void brokerIsolated(String brokerName, String brokerRoom, long isolatedForMs, Throwable cause) {
        safely("brokerIsolated", () -> inner.brokerIsolated(brokerName, brokerRoom, isolatedForMs, cause));
    }

    @Override
    public void queuesTakenOver(String group, String topic, String fromRoom, int queues) {
        safely("queuesTakenOver", () -> inner.queuesTakenOver(group, topic, fromRoom, queues));
    }

    @Override
    public void failedOver(String topic, String from, String fromRoom, String to, String toRoom) {
        safely("failedOver", () -> inner.failedOver(topic, from, fromRoom, to, toRoom));
    }

    @Override
    public void requestTimeoutChanged(long timeoutMs, long previousMs, Double p99Ms, int samples) {
        safely("requestTimeoutChanged", () -> inner.requestTimeoutChanged(timeoutMs, previousMs, p99Ms, samples));
    }

    private static void safely(String what, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("RoomAwareListener.{} threw {}; the client goes on", what, e.toString());
        }
    }
}
