package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BrokerIsolationTest {
    private final AtomicLong now = new AtomicLong(10_000);
    private final BrokerIsolation isolation = new BrokerIsolation(1000, 5000, now::get);

    @Test
    void aFailedBrokerIsIsolatedForTheBaseTimeThenTriedAgain() {
        assertEquals(1000, isolation.isolate("broker-a"));
        assertTrue(isolation.isIsolated("broker-a"));
        assertFalse(isolation.isIsolated("broker-b"));
        assertEquals(11_000, isolation.isolatedUntil("broker-a"));
        now.addAndGet(1000);
        assertFalse(isolation.isIsolated("broker-a"));
    }

    @Test
    void failuresInARowDoubleTheTimeUpToTheCap() {
        assertEquals(1000, isolation.isolate("broker-a"));
        now.addAndGet(1000);
        assertEquals(2000, isolation.isolate("broker-a"));
        now.addAndGet(2000);
        assertEquals(4000, isolation.isolate("broker-a"));
        now.addAndGet(4000);
        assertEquals(5000, isolation.isolate("broker-a"));
        now.addAndGet(5000);
        assertEquals(5000, isolation.isolate("broker-a"));
    }

    @Test
    void aFailureWhileIsolatedIsTheSameStrike() {
        isolation.isolate("broker-a");
        now.addAndGet(300);
        assertEquals(700, isolation.isolate("broker-a"));
        now.addAndGet(700);
        assertEquals(2000, isolation.isolate("broker-a"));
    }

    @Test
    void oneSuccessForgetsTheHistory() {
        isolation.isolate("broker-a");
        now.addAndGet(1000);
        isolation.isolate("broker-a");
        isolation.succeeded("broker-a");
        assertFalse(isolation.isIsolated("broker-a"));
        assertEquals(0, isolation.isolatedUntil("broker-a"));
        assertEquals(1000, isolation.isolate("broker-a"));
    }

    @Test
    void refusesTimesThatCannotWork() {
        assertThrows(IllegalArgumentException.class, () -> new BrokerIsolation(0, 10, now::get));
        assertThrows(IllegalArgumentException.class, () -> new BrokerIsolation(100, 10, now::get));
    }

    @Test
    void aTimeoutIsASuspicionUntilAnAttemptStartedARequestTimeoutLaterTimesOutToo() {
        BrokerIsolation iso = new BrokerIsolation(1000, 5000, 400, now::get);
        // A stall of the client: every request in flight times out at once.
        assertEquals(0, iso.timedOut("broker-a", 10_000));
        assertEquals(0, iso.timedOut("broker-a", 10_150));
        assertEquals(0, iso.timedOut("broker-a", 10_399));
        assertTrue(iso.isSuspected("broker-a"));
        assertFalse(iso.isIsolated("broker-a"));
        // A hung broker: an attempt started 400 ms after the first one fails too.
        assertEquals(1000, iso.timedOut("broker-a", 10_400));
        assertTrue(iso.isIsolated("broker-a"));
        assertFalse(iso.isSuspected("broker-a"));
    }

    @Test
    void aTimeoutOnABrokerIsolatedBeforeIsolatesAtOnceAndAnAnswerClearsSuspicion() {
        BrokerIsolation iso = new BrokerIsolation(1000, 5000, 400, now::get);
        iso.isolate("broker-a");
        now.addAndGet(1000);
        assertEquals(2000, iso.timedOut("broker-a", now.get()));
        assertEquals(0, iso.timedOut("broker-b", 10_000));
        iso.succeeded("broker-b");
        assertFalse(iso.isSuspected("broker-b"));
        // The suspicion starts over: an attempt 400 ms after the cleared one is a first timeout again.
        assertEquals(0, iso.timedOut("broker-b", 10_400));
    }

    @Test
    void oldSuspicionsAndOldStrikesAreForgotten() {
        BrokerIsolation iso = new BrokerIsolation(1000, 5000, 400, now::get);
        assertEquals(0, iso.timedOut("broker-a", 10_000));
        // Long after (the broker was not used since): a first timeout again, not a confirmation.
        assertEquals(0, iso.timedOut("broker-a", 20_000));
        iso.isolate("broker-b");
        now.addAndGet(1000);
        assertEquals(2000, iso.isolate("broker-b"));
        // More than the cap after the last isolation ended: the history starts over.
        now.addAndGet(2000 + 5001);
        assertEquals(1000, iso.isolate("broker-b"));
    }
}

