package io.drstudio.rocketmq.dr;

import java.util.List;

/**
 * Every choice and failover the extension makes, for an application's metrics or audit log (DR
 * Studio's Java worker writes them to its ledger). Methods run on the thread that decided: keep
 * them short and never throw. Every method has an empty default.
 */
public interface RoomAwareListener {
    /**
     * The name-server list changed.
     *
     * @param selection          the list now in use and why
     * @param entries            every name server the management node reported
     * @param managementRoom     the room of the management node that answered
     * @param managementFallback that node is another room's (the own room's did not answer)
     */
    default void nameServersChanged(NameServerSelection selection, List<NameServerEntry> entries,
        String managementRoom, boolean managementFallback) {
    }

    /**
     * The management node that answers changed: another room's while the own room's does not
     * answer, the own room's again, or none (then the last list stays in use).
     *
     * @param answeringRoom the room whose node answered, or null when none did
     * @param ownRoomError  why the own room's node did not answer, or null when it did
     */
    default void managementChanged(String answeringRoom, String ownRoomError) {
    }

    /**
     * A producer's send goes to another broker than its previous one.
     *
     * @param reason {@code same-room}, {@code other-room} or {@code last-resort} (every broker isolated)
     */
    default void brokerChosen(String topic, String brokerName, String brokerRoom, String reason) {
    }

    /** An attempt failed; the broker is isolated for {@code isolatedForMs}. */
    default void brokerIsolated(String brokerName, String brokerRoom, long isolatedForMs, Throwable cause) {
    }

    /**
     * This consumer was given {@code queues} queues of {@code fromRoom}, which has no consumer of the
     * group left (claim 5's takeover); told once until that room has consumers again.
     */
    default void queuesTakenOver(String group, String topic, String fromRoom, int queues) {
    }

    /** A send failed on {@code from} and then succeeded on {@code to}. */
    default void failedOver(String topic, String from, String fromRoom, String to, String toRoom) {
    }

    /**
     * The producer's request timeout moved with its recent healthy latency (1.5 × the p99 of the
     * last 30 s, between requestTimeout and maxRequestTimeout): told when it moves by a quarter or
     * more, or to or from the floor.
     *
     * @param p99Ms   the p99 it follows, or null with too few answers (the timeout is then the floor)
     * @param samples the answers in the window
     */
    default void requestTimeoutChanged(long timeoutMs, long previousMs, Double p99Ms, int samples) {
    }
}
