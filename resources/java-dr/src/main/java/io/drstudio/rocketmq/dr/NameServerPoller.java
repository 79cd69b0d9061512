package io.drstudio.rocketmq.dr;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.logging.org.slf4j.Logger;
import org.apache.rocketmq.logging.org.slf4j.LoggerFactory;

/**
 * Keeps a client's name-server list to its room (claims 2 and 4). Asks the own room's management
 * node every {@link RoomAwareConfig#pollIntervalMs()} (another room's while the own room's does not
 * answer) and hands the client the {@link NameServerSelection}: the available name servers of its
 * room, or of the other rooms when its room has none. When no node answers, the last list stays.
 *
 * <p>Before the client starts, {@link #prepare} sets {@code namesrvAddr} from a first answer, so the
 * stock address-server fetch (every 2 minutes, all rooms) never runs; after it started,
 * {@link #attach} pushes every change into its remoting client, which drops a chosen name server
 * that left the list and picks again from the new one.
 */
public final class NameServerPoller implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NameServerPoller.class);

    private final RoomAwareConfig config;
    private final ManagementSource source;
    private volatile Consumer<NameServerSelection> sink = s -> { };
    private volatile NameServerSelection current;
    /** The room whose node answered last; "" before the first poll, null when none answered. */
    private volatile String answeringRoom = "";
    private ScheduledExecutorService timer;

    public NameServerPoller(RoomAwareConfig config, ManagementSource source) {
        this.config = Objects.requireNonNull(config, "config");
        this.source = Objects.requireNonNull(source, "source");
    }

    /** The list in use, or null before any management node answered with an available name server. */
    public NameServerSelection current() {
        return current;
    }

    /**
     * Sets a client's name servers from a first poll ({@code client::setNamesrvAddr}). Fails naming
     * every node asked when none answers with an available name server: a client without a list
     * cannot start.
     */
    public void prepare(Consumer<String> setNamesrvAddr) throws MQClientException {
        NameServerSelection first = pollOnce();
        if (first == null) {
            throw new MQClientException("room " + config.room() + ": no management node answered with an available "
                + "name server (asked " + config.managementOrder() + "); check that the management nodes run and "
                + "reach the name servers, or set namesrvAddr yourself and leave the management nodes out", null);
        }
        setNamesrvAddr.accept(first.joined());
    }

    /** {@link #prepare}, unless the application gave the client a list itself ({@code current}). */
    public void prepareUnlessSet(String current, Consumer<String> setNamesrvAddr) throws MQClientException {
        if (current == null || current.isBlank()) prepare(setNamesrvAddr);
    }

    /** Pushes every later change into the started client's remoting layer and starts polling. */
    public synchronized void attach(MQClientInstance instance) {
        sink = s -> instance.getMQClientAPIImpl().updateNameServerAddressList(s.joined());
        if (timer != null) return;
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "drstudio-dr-nameservers-" + config.room());
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::pollQuietly, config.pollIntervalMs(), config.pollIntervalMs(), TimeUnit.MILLISECONDS);
    }

    /** One poll: returns the selection in use after it (null when there never was one). */
    public NameServerSelection pollOnce() {
        String ownError = null;
        for (ManagementNode node : config.managementOrder()) {
            List<NameServerEntry> entries;
            try {
                entries = source.fetch(node, config.managementTimeoutMs());
            } catch (Exception e) {
                if (node.room().equals(config.room()) && ownError == null) ownError = node.url() + ": " + e;
                continue;
            }
            if (!node.room().equals(config.room()) && ownError == null) {
                ownError = "room " + config.room() + " has no management node";
            }
            noteAnswering(node.room(), ownError);
            accept(NameServerSelection.choose(config.room(), entries), entries, node.room());
            return current;
        }
        noteAnswering(null, ownError);
        return current;
    }

    private void accept(NameServerSelection next, List<NameServerEntry> entries, String fromRoom) {
        // Nothing available anywhere: keep the last list rather than give the client none.
        if (next == null || next.equals(current)) return;
        current = next;
        LOG.info("room {}: name servers {} ({}, from room {}'s management node)", config.room(), next.addresses(),
            next.reason().wire, fromRoom);
        sink.accept(next);
        config.listener().nameServersChanged(next, entries, fromRoom, !fromRoom.equals(config.room()));
    }

    private void noteAnswering(String room, String ownError) {
        if (Objects.equals(room, answeringRoom)) return;
        answeringRoom = room;
        if (room == null) {
            LOG.warn("room {}: no management node answers ({}); keeping name servers {}", config.room(), ownError,
                current == null ? "[]" : current.addresses());
        } else if (!room.equals(config.room())) {
            LOG.warn("room {}: own management node unreachable ({}); using room {}'s", config.room(), ownError, room);
        }
        config.listener().managementChanged(room, ownError);
    }

    private void pollQuietly() {
        try {
            pollOnce();
        } catch (RuntimeException e) {
            // A listener or the client threw: the next poll tries again.
            LOG.warn("room {}: name-server poll failed: {}", config.room(), e.toString());
        }
    }

    @Override
    public synchronized void close() {
        if (timer != null) timer.shutdownNow();
        timer = null;
    }
}
