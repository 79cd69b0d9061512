package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;
import org.junit.jupiter.api.Test;

class OrderFencesTest {
    private final AtomicLong now = new AtomicLong(10_000);
    private final List<Long> slept = new ArrayList<>();
    private final OrderFences fences = new OrderFences(1500, now::get, ms -> {
        slept.add(ms);
        now.addAndGet(ms);
    });
    private final SendResult ok = new SendResult();

    /** A send that takes {@code ms} of the clock, then throws {@code e} (or answers when null). */
    private OrderFences.TimedSend taking(long ms, Exception e, List<Long> timeouts) {
        return left -> {
            timeouts.add(left);
            now.addAndGet(ms);
            if (e != null) throw e;
            return ok;
        };
    }

    @Test
    void aKeyWithoutAFenceGoesAtOnceWithItsWholeTimeout() throws Exception {
        List<Long> timeouts = new ArrayList<>();
        assertSame(ok, fences.send("t/k1", 3000, taking(5, null, timeouts)));
        assertEquals(List.of(3000L), timeouts);
        assertEquals(List.of(), slept);
        assertEquals(0, fences.size());
    }

    @Test
    void anUnansweredSendHoldsTheKeysNextSendForTheFenceFromWhenItEnded() throws Exception {
        List<Long> timeouts = new ArrayList<>();
        assertThrows(RemotingTimeoutException.class,
            () -> fences.send("t/k1", 3000, taking(3000, new RemotingTimeoutException("timed out"), timeouts)));
        now.addAndGet(200);
        assertSame(ok, fences.send("t/k1", 3000, taking(5, null, timeouts)));
        // 1500 ms from the timeout, 200 of which had passed; the send gets what is left of its 3 s.
        assertEquals(List.of(1300L), slept);
        assertEquals(1700L, timeouts.get(1));
        assertEquals(0, fences.waitFor("t/k1", now.get()));
    }

    @Test
    void otherKeysAreNotHeld() throws Exception {
        assertThrows(RemotingTimeoutException.class,
            () -> fences.send("t/k1", 3000, taking(3000, new RemotingTimeoutException("timed out"), new ArrayList<>())));
        assertSame(ok, fences.send("t/k2", 3000, taking(5, null, new ArrayList<>())));
        assertEquals(List.of(), slept);
    }

    @Test
    void aConnectionLostAfterTheRequestMayHaveGoneOutFencesTheKey() {
        assertThrows(RemotingSendRequestException.class,
            () -> fences.send("t/k1", 3000, taking(10, new RemotingSendRequestException("10.0.0.1:10911"), new ArrayList<>())));
        assertEquals(1500, fences.waitFor("t/k1", now.get()));
    }

    @Test
    void aRefusedConnectionOrABrokersAnswerLeavesNothingQueuedSoDoesNotFence() {
        assertThrows(RemotingConnectException.class,
            () -> fences.send("t/k1", 3000, taking(1, new RemotingConnectException("10.0.0.1:10911"), new ArrayList<>())));
        assertThrows(MQBrokerException.class,
            () -> fences.send("t/k1", 3000, taking(1, new MQBrokerException(2, "system busy"), new ArrayList<>())));
        assertEquals(0, fences.size());
    }

    @Test
    void aSendWhoseTimeoutEndsBeforeTheFenceFailsWithoutGoingOut() {
        assertThrows(RemotingTimeoutException.class,
            () -> fences.send("t/k1", 3000, taking(3000, new RemotingTimeoutException("timed out"), new ArrayList<>())));
        List<Long> timeouts = new ArrayList<>();
        RemotingTooMuchRequestException e = assertThrows(RemotingTooMuchRequestException.class,
            () -> fences.send("t/k1", 1000, taking(5, null, timeouts)));
        assertTrue(e.getMessage().contains("t/k1") && e.getMessage().contains("order fence"), e.getMessage());
        assertEquals(List.of(), timeouts);
        assertEquals(List.of(), slept);
    }

    @Test
    void aSendLeftWithTooLittleOfItsTimeoutAfterTheFenceFailsWithoutGoingOut() {
        assertThrows(RemotingTimeoutException.class,
            () -> fences.send("t/k1", 3000, taking(3000, new RemotingTimeoutException("timed out"), new ArrayList<>())));
        List<Long> timeouts = new ArrayList<>();
        // 1500 ms of fence in a 1550 ms timeout: 50 ms would time out before the request went out.
        assertThrows(RemotingTooMuchRequestException.class, () -> fences.send("t/k1", 1550, taking(5, null, timeouts)));
        assertEquals(List.of(), timeouts);
    }

    @Test
    void passedFencesOfKeysNeverSentAgainAreDroppedOnceThereAreMany() {
        for (int k = 0; k <= OrderFences.PRUNE_ABOVE; k++) {
            String key = "t/k" + k;
            assertThrows(RemotingTimeoutException.class,
                () -> fences.send(key, 3000, taking(0, new RemotingTimeoutException("timed out"), new ArrayList<>())));
        }
        assertEquals(OrderFences.PRUNE_ABOVE + 1, fences.size());
        now.addAndGet(2000);
        assertThrows(RemotingTimeoutException.class,
            () -> fences.send("t/last", 3000, taking(0, new RemotingTimeoutException("timed out"), new ArrayList<>())));
        assertEquals(1, fences.size());
    }

    @Test
    void roomAwareProducersSelectorSendsGoThroughTheFenceOfAWaitSelectorOnly() throws Exception {
        AtomicLong clock = new AtomicLong(50_000);
        RoomAwareProducer producer =
            new RoomAwareProducer("orders", RoomAwareConfig.builder("room1").build(), ManagementSource.HTTP, clock::get);
        producer.setSendMsgTimeout(1000);
        RoomOrderSelector wait = producer.orderSelector(RoomOrderSelector.Policy.WAIT);
        RoomOrderSelector reroute = producer.orderSelector(RoomOrderSelector.Policy.REROUTE);
        for (RoomOrderSelector s : List.of(wait, reroute)) {
            assertThrows(RemotingTimeoutException.class, () -> s.fences().send("orders/k1", 3000, left -> {
                throw new RemotingTimeoutException("timed out");
            }));
        }
        Message msg = new Message("orders", new byte[0]);
        // The fence (1.5 s, the clock stands still) outlasts the 1 s timeout: refused before the
        // (unstarted) client is asked, by the 3- and the 4-argument send.
        assertThrows(RemotingTooMuchRequestException.class, () -> producer.send(msg, wait, "k1"));
        assertThrows(RemotingTooMuchRequestException.class, () -> producer.send(msg, wait, "k1", 1000));
        // Another key, or a selector that does not wait (its fence is never read), reaches the
        // client, which refuses: not started.
        assertThrows(MQClientException.class, () -> producer.send(msg, wait, "k2", 1000));
        assertThrows(MQClientException.class, () -> producer.send(msg, reroute, "k1"));
        assertThrows(MQClientException.class, () -> producer.send(msg, reroute, "k1", 1000));
    }
}
