package io.drstudio.rocketmq.dr;

import static io.drstudio.rocketmq.dr.BrokerChooserTest.broker;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.junit.jupiter.api.Test;

class SendAttemptsTest {
    private final AtomicLong now = new AtomicLong(0);
    private final List<String> heard = new ArrayList<>();
    private List<BrokerView> route = List.of(broker("broker-a", "room1", 4), broker("broker-b", "room2", 4),
        broker("broker-c", "room3", 4));
    private final RoomAwareConfig config = RoomAwareConfig.builder("room1").requestTimeout(400).isolation(1000, 8000)
        .listener(new RoomAwareListener() {
            @Override
            public void brokerChosen(String topic, String brokerName, String brokerRoom, String reason) {
                heard.add("chosen " + brokerName + " " + reason);
            }

            @Override
            public void brokerIsolated(String brokerName, String brokerRoom, long isolatedForMs, Throwable cause) {
                heard.add("isolated " + brokerName + " " + isolatedForMs);
            }

            @Override
            public void failedOver(String topic, String from, String fromRoom, String to, String toRoom) {
                heard.add("failover " + fromRoom + "->" + toRoom);
            }
        }).build();
    private final BrokerIsolation isolation = new BrokerIsolation(1000, 8000, 400, now::get);
    /** Response code 2 (SYSTEM_BUSY) is retried; 13 (MESSAGE_ILLEGAL) is not. */
    private final SendAttempts.Shared shared = new SendAttempts.Shared(config, isolation, topic -> route, now::get, Set.of(2));

    @Test
    void aHealthySendTriesItsOwnRoomOnceAndSaysSoOnce() throws Exception {
        SendAttempts a = new SendAttempts(shared, "t", 3000);
        SendAttempts.Attempt first = a.next();
        assertEquals("broker-a", first.broker().name());
        assertEquals(400, first.timeoutMs());
        a.succeeded(first);
        new SendAttempts(shared, "t", 3000).next();
        assertEquals(List.of("chosen broker-a same-room"), heard);
    }

    @Test
    void aBusyHostsSlowHealthyAnswersStretchTheRequestTimeoutUpToItsCeiling() throws Exception {
        // 30 sends answered in 350 ms each (under the 400 ms floor): a loaded host, not a hung broker.
        assertEquals(400, new SendAttempts(shared, "t", 3000).next().timeoutMs());
        for (int i = 0; i < 30; i++) {
            SendAttempts a = new SendAttempts(shared, "t", 3000);
            SendAttempts.Attempt attempt = a.next();
            now.addAndGet(350);
            a.succeeded(attempt);
        }
        now.addAndGet(1000);
        // 1.5 × p99: a 450 ms answer is now waited for on its own room's broker.
        assertEquals(525, new SendAttempts(shared, "t", 3000).next().timeoutMs());
        RoomAwareConfig fixed = RoomAwareConfig.builder("room1").requestTimeout(400).maxRequestTimeout(400).build();
        assertEquals(400, fixed.maxRequestTimeoutMs());
        assertEquals(1600, RoomAwareConfig.builder("room1").requestTimeout(400).build().maxRequestTimeoutMs());
        assertThrows(IllegalArgumentException.class,
            () -> RoomAwareConfig.builder("room1").requestTimeout(400).maxRequestTimeout(300).build());
    }

    @Test
    void aFailureIsolatesTheBrokerAndTheNextAttemptGoesToAnotherRoom() throws Exception {
        SendAttempts a = new SendAttempts(shared, "t", 3000);
        SendAttempts.Attempt first = a.next();
        now.addAndGet(400);
        a.failed(first, new RemotingConnectException("broker-a:10911"));
        route = route.subList(0, 2);
        SendAttempts.Attempt second = a.next();
        assertEquals("room2", second.broker().room());
        a.succeeded(second);
        assertEquals(List.of("chosen broker-a same-room", "isolated broker-a 1000", "chosen broker-b other-room",
            "failover room1->room2"), heard);
        // The next send stays away while broker-a is isolated, and comes home after.
        assertEquals("broker-b", new SendAttempts(shared, "t", 3000).next().broker().name());
        now.addAndGet(1000);
        assertEquals("broker-a", new SendAttempts(shared, "t", 3000).next().broker().name());
    }

    @Test
    void theLastCandidateGetsWhatRemainsOfTheBudget() throws Exception {
        SendAttempts a = new SendAttempts(shared, "t", 3000);
        a.failed(a.next(), new RemotingConnectException("a"));
        now.addAndGet(400);
        a.failed(a.next(), new RemotingConnectException("b"));
        now.addAndGet(400);
        SendAttempts.Attempt last = a.next();
        assertEquals("other-room", heard.get(heard.size() - 1).split(" ")[2]);
        assertEquals(2200, last.timeoutMs());
        a.failed(last, new RemotingConnectException("c"));
        assertNull(a.next());
        assertInstanceOf(RemotingConnectException.class, a.failure());
    }

    @Test
    void noAttemptOnceTheBudgetIsSpent() throws Exception {
        SendAttempts a = new SendAttempts(shared, "t", 500);
        SendAttempts.Attempt first = a.next();
        assertEquals(400, first.timeoutMs());
        now.addAndGet(450);
        a.failed(first, new RemotingConnectException("a"));
        assertEquals(50, a.next().timeoutMs());
        now.addAndGet(50);
        assertNull(a.next());
    }

    @Test
    void aRefusedMessageIsThrownBackNotRetried() throws Exception {
        SendAttempts a = new SendAttempts(shared, "t", 3000);
        SendAttempts.Attempt first = a.next();
        MQBrokerException refused = new MQBrokerException(13, "message illegal");
        assertSame(refused, assertThrows(MQBrokerException.class, () -> a.failed(first, refused)));
        assertTrue(heard.stream().noneMatch(h -> h.startsWith("isolated")));
        a.failed(first, new MQBrokerException(2, "busy"));
        assertEquals("isolated broker-a 1000", heard.get(heard.size() - 1));
    }

    @Test
    void noRouteIsSaidAsSuch() throws Exception {
        route = List.of();
        SendAttempts a = new SendAttempts(shared, "t", 3000);
        assertNull(a.next());
        MQClientException e = assertInstanceOf(MQClientException.class, a.failure());
        assertTrue(e.getMessage().contains("no route"), e.getMessage());
    }

    @Test
    void aTimeoutRetriesItsRoomsBrokerOnceAndOnlyAConfirmedOneLeavesTheRoom() throws Exception {
        SendAttempts a = new SendAttempts(shared, "t", 3000);
        SendAttempts.Attempt first = a.next();
        now.addAndGet(400);
        a.failed(first, new RemotingTimeoutException("wait response timeout, 400(ms)"));
        // Unconfirmed: a second try at home, on a fresh connection.
        SendAttempts.Attempt second = a.next();
        assertEquals("broker-a", second.broker().name());
        now.addAndGet(400);
        // Started 400 ms after the first: the broker hangs. Isolated; the third attempt leaves the room.
        a.failed(second, new RemotingTimeoutException("wait response timeout, 400(ms)"));
        assertEquals("isolated broker-a 1000", heard.get(heard.size() - 1));
        assertEquals("other-room", BrokerChooser.choose("room1", route, isolation, Set.of("broker-a"), 0).reason());
        assertTrue(!"broker-a".equals(a.next().broker().name()));
    }

    @Test
    void aSocketClosedUnderARequestAfterAStallIsNotProofTheBrokerIsDown() throws Exception {
        SendAttempts a = new SendAttempts(shared, "t", 3000);
        SendAttempts.Attempt first = a.next();
        now.addAndGet(100);
        a.failed(first, new RemotingSendRequestException("127.0.0.1:10911"));
        assertTrue(heard.stream().noneMatch(h -> h.startsWith("isolated")));
        assertEquals("broker-a", a.next().broker().name());
        assertTrue(SendAttempts.timedOut(new RemotingSendRequestException("x")));
        assertTrue(!SendAttempts.timedOut(new RemotingConnectException("x")));
    }

    @Test
    void theAsyncPathsWrappedTimeoutIsASuspicionToo() {
        assertTrue(SendAttempts.timedOut(new MQClientException("wait response timeout, cost=1001",
            new RemotingTimeoutException("x"))));
        assertTrue(SendAttempts.timedOut(new MQClientException("send request failed", new RemotingSendRequestException("x"))));
        assertTrue(!SendAttempts.timedOut(new MQClientException("connect failed", new RemotingConnectException("x"))));
        assertTrue(!SendAttempts.timedOut(new MQClientException("no route", null)));
    }

    @Test
    void everyQueueOfEveryBrokerGetsSendsWhateverTheNumberOfBrokers() throws Exception {
        route = List.of(broker("broker-a", "room1", 4), broker("broker-a2", "room1", 4));
        java.util.Set<String> used = new java.util.HashSet<>();
        for (int i = 0; i < 16; i++) {
            SendAttempts.Attempt a = new SendAttempts(shared, "t", 3000).next();
            used.add(a.broker().name() + "/" + a.queue().getQueueId());
        }
        assertEquals(8, used.size());
    }

    @Test
    void noSecondTryAtHomeWithoutRoomForOneMoreAttemptElsewhere() throws Exception {
        SendAttempts a = new SendAttempts(shared, "t", 1000);
        SendAttempts.Attempt first = a.next();
        now.addAndGet(400);
        // 600 ms left: a second 400 ms try at home would leave no full attempt for room 2.
        a.failed(first, new RemotingTimeoutException("wait response timeout, 400(ms)"));
        assertEquals("other-room", BrokerChooser.choose("room1", route, isolation, Set.of("broker-a"), 0).reason());
        assertTrue(!"broker-a".equals(a.next().broker().name()));
    }

    @Test
    void aListenerThatThrowsNeverFailsASend() throws Exception {
        RoomAwareConfig throwing = RoomAwareConfig.builder("room1").listener(new RoomAwareListener() {
            @Override
            public void brokerChosen(String topic, String brokerName, String brokerRoom, String reason) {
                throw new IllegalStateException("metrics down");
            }

            @Override
            public void failedOver(String topic, String from, String fromRoom, String to, String toRoom) {
                throw new IllegalStateException("metrics down");
            }
        }).build();
        SendAttempts.Shared sh = new SendAttempts.Shared(throwing, isolation, topic -> route, now::get, Set.of());
        SendAttempts a = new SendAttempts(sh, "t", 3000);
        a.failed(a.next(), new RemotingConnectException("a"));
        a.succeeded(a.next());
    }

    @Test
    void aRefusedConnectionTellsTheProducerTheBrokerIsDownATimeoutDoesNot() throws Exception {
        List<String> down = new ArrayList<>();
        SendAttempts.Shared sh = new SendAttempts.Shared(config, isolation, topic -> route, now::get, Set.of(), down::add);
        SendAttempts a = new SendAttempts(sh, "t", 3000);
        a.failed(a.next(), new RemotingTimeoutException("x"));
        assertEquals(List.of(), down);
        a.failed(a.next(), new MQClientException("connect failed", new RemotingConnectException("127.0.0.1:10911")));
        assertEquals(List.of("broker-a"), down);
    }
}

