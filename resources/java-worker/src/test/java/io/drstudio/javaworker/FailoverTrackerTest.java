package io.drstudio.javaworker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class FailoverTrackerTest {
    @Test
    void successOnAnotherBrokerAfterAFailureIsAFailoverTimedFromTheFailedAttempt() {
        FailoverTracker t = new FailoverTracker();
        t.failed("broker-a", "room1", "RemotingConnectException", 100);
        t.failed("broker-a", "room1", "later failure", 150);
        FailoverTracker.Failover f = t.succeeded("broker-b", "room2", 160, 175);
        assertNotNull(f);
        assertEquals("broker-a", f.from());
        assertEquals("room2", f.toRoom());
        assertEquals("RemotingConnectException", f.reason());
        assertEquals(75, f.durationMs());
        assertNull(t.pending());
    }

    @Test
    void successThatStartedBeforeTheFailureKeepsItPending() {
        FailoverTracker t = new FailoverTracker();
        t.failed("broker-a", "room1", "timeout", 100);
        assertNull(t.succeeded("broker-b", "room2", 90, 120));
        assertNotNull(t.pending());
    }

    @Test
    void successOnTheFailedBrokerEndsItWithoutFailover() {
        FailoverTracker t = new FailoverTracker();
        t.failed("broker-a", "room1", "timeout", 100);
        assertNull(t.succeeded("broker-a", "room1", 110, 120));
        assertNull(t.pending());
        assertNull(t.succeeded("broker-b", "room2", 130, 140));
    }

    @Test
    void failuresWithoutABrokerAreIgnored() {
        FailoverTracker t = new FailoverTracker();
        t.failed(null, null, "no route", 100);
        assertNull(t.pending());
    }
}
