package io.drstudio.rocketmq.dr;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;

/**
 * The attempts of one send, within its timeout: which queue each tries, how long it may take, what a
 * failure does (isolate the broker, try the next), and what the listener hears. Shared by the sync,
 * async and oneway paths of {@link RoomAwareProducer}; knows nothing of the network.
 */
final class SendAttempts {
    /** A topic's brokers with writable queues, from the client's route table. */
    @FunctionalInterface
    interface Routes {
        List<BrokerView> brokersOf(String topic) throws MQClientException;
    }

    /** What one producer's sends share. */
    static final class Shared {
        final RoomAwareConfig config;
        final BrokerIsolation isolation;
        final Routes routes;
        final LongSupplier clock;
        final Set<Integer> retryResponseCodes;
        final AtomicInteger cursor = new AtomicInteger();
        /** Per broker, the next queue: apart from the broker cursor, so every queue of every broker gets sends. */
        final Map<String, AtomicInteger> queueCursors = new ConcurrentHashMap<>();
        /** The broker each topic's sends went to last, so the listener hears of changes only. */
        final Map<String, String> lastBroker = new ConcurrentHashMap<>();
        /** Told of a broker proven down (its connection refused): fails the requests still waiting on it. */
        final Consumer<String> brokerDown;
        /** The request timeout, following the healthy answers of every send. */
        final RequestTimeout requestTimeout;

        Shared(RoomAwareConfig config, BrokerIsolation isolation, Routes routes, LongSupplier clock,
            Set<Integer> retryResponseCodes) {
            this(config, isolation, routes, clock, retryResponseCodes, broker -> { });
        }

        Shared(RoomAwareConfig config, BrokerIsolation isolation, Routes routes, LongSupplier clock,
            Set<Integer> retryResponseCodes, Consumer<String> brokerDown) {
            this.config = config;
            this.isolation = isolation;
            this.routes = routes;
            this.clock = clock;
            this.retryResponseCodes = retryResponseCodes;
            this.brokerDown = brokerDown;
            this.requestTimeout = new RequestTimeout(config.requestTimeoutMs(), config.maxRequestTimeoutMs(),
                config.listener()::requestTimeoutChanged);
        }
    }

    /** One attempt: the broker and queue, when it started, and the most it may take. */
    record Attempt(BrokerView broker, MessageQueue queue, long startedAt, long timeoutMs) {
    }

    private final Shared shared;
    private final String topic;
    private final long deadline;
    private final Set<String> tried = new HashSet<>();
    /** Brokers given a second attempt in this send after an unconfirmed timeout. */
    private final Set<String> retried = new HashSet<>();
    private Attempt firstFailed;
    private Exception last;

    SendAttempts(Shared shared, String topic, long timeoutMs) {
        this.shared = shared;
        this.topic = topic;
        this.deadline = shared.clock.getAsLong() + timeoutMs;
    }

    /** The next attempt, or null when the time is up or every broker was tried. */
    synchronized Attempt next() throws MQClientException {
        long now = shared.clock.getAsLong();
        long remaining = deadline - now;
        if (remaining <= 0) return null;
        List<BrokerView> brokers = shared.routes.brokersOf(topic);
        int cursor = shared.cursor.getAndIncrement();
        BrokerChooser.Choice choice = BrokerChooser.choose(shared.config.room(), brokers, shared.isolation, tried, cursor);
        if (choice == null) return null;
        BrokerView b = choice.broker();
        tried.add(b.name());
        // The last candidate gets what is left; before it, a hung broker costs one request timeout.
        long timeout = BrokerChooser.untried(brokers, tried) == 0 ? remaining
            : Math.min(remaining, shared.requestTimeout.timeoutMs(now));
        String previous = shared.lastBroker.put(topic, b.name());
        if (!b.name().equals(previous)) shared.config.listener().brokerChosen(topic, b.name(), b.room(), choice.reason());
        int queue = shared.queueCursors.computeIfAbsent(b.name(), k -> new AtomicInteger()).getAndIncrement();
        return new Attempt(b, b.queue(queue), now, timeout);
    }

    /**
     * A failed attempt: isolates its broker so the next attempt (and other sends) go elsewhere. A
     * timeout isolates only when confirmed ({@link BrokerIsolation#timedOut}); until then the
     * broker may be tried once more in this send, on a fresh connection. A broker's answer that no
     * retry can change (the message is refused) is thrown back instead.
     */
    void failed(Attempt a, Exception e) throws MQBrokerException {
        recordFailure(a, e);
        // Outside this send's lock: failing other sends' requests runs their callbacks.
        if (refused(e)) shared.brokerDown.accept(a.broker().name());
    }

    private synchronized void recordFailure(Attempt a, Exception e) throws MQBrokerException {
        if (e instanceof MQBrokerException be && !shared.retryResponseCodes.contains(be.getResponseCode())) throw be;
        last = e;
        if (firstFailed == null) firstFailed = a;
        String name = a.broker().name();
        long isolatedFor = timedOut(e) ? shared.isolation.timedOut(name, a.startedAt()) : shared.isolation.isolate(name);
        if (isolatedFor > 0) {
            shared.config.listener().brokerIsolated(name, a.broker().room(), isolatedFor, e);
        } else if (retried.add(name)
            && deadline - shared.clock.getAsLong() >= 2 * shared.requestTimeout.timeoutMs(shared.clock.getAsLong())) {
            // Room for the retry and, should it time out too, one attempt elsewhere.
            tried.remove(name);
        }
    }

    /**
     * No answer in time, the socket closed under a request (the stock client closes it after a
     * timeout), or the client's own back-pressure: the broker may be alive and the client the one
     * that stalled. The async path wraps these in an MQClientException; its cause says which.
     */
    static boolean timedOut(Throwable e) {
        Throwable t = e instanceof MQClientException && e.getCause() != null ? e.getCause() : e;
        return t instanceof RemotingTimeoutException || t instanceof RemotingSendRequestException
            || t instanceof RemotingTooMuchRequestException;
    }

    /** The broker refused the connection: proof it is down, unlike a timeout. */
    static boolean refused(Throwable e) {
        Throwable t = e instanceof MQClientException && e.getCause() != null ? e.getCause() : e;
        return t instanceof RemotingConnectException;
    }

    /** A successful attempt: its broker is healthy; a success after a failure elsewhere is a failover. */
    synchronized void succeeded(Attempt a) {
        long now = shared.clock.getAsLong();
        shared.requestTimeout.record(now, now - a.startedAt());
        shared.isolation.succeeded(a.broker().name());
        if (firstFailed != null && !firstFailed.broker().name().equals(a.broker().name())) {
            shared.config.listener().failedOver(topic, firstFailed.broker().name(), firstFailed.broker().room(),
                a.broker().name(), a.broker().room());
        }
    }

    /** Why the send gave up: the last attempt's error, or no broker to try. */
    synchronized Exception failure() {
        if (last != null) return last;
        return new MQClientException("no broker with writable queues of topic " + topic + " is left to try"
            + (tried.isEmpty() ? " (no route: check that the topic exists and the name servers are up)" : ""), null);
    }
}
