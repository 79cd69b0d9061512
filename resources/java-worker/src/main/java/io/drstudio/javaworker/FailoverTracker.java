package io.drstudio.javaworker;

/**
 * Per producer: the first failed attempt since the last success, and whether a later success on
 * another broker is a failover. Same definition as our client's (producer.ts): durationMs runs from
 * the start of the failed attempt to the end of the first success elsewhere. A success that started
 * before the failure says nothing about recovery and leaves the failure pending; a success on the
 * failed broker itself ends it without a failover.
 */
final class FailoverTracker {
    record Failure(String broker, String room, String reason, double at) {
    }

    record Failover(String from, String fromRoom, String to, String toRoom, String reason, double durationMs) {
    }

    private Failure pending;

    synchronized void failed(String broker, String room, String reason, double attemptStartedAt) {
        if (broker == null) return;
        if (pending == null) pending = new Failure(broker, room, reason, attemptStartedAt);
    }

    /** Returns the failover this success completes, if any. */
    synchronized Failover succeeded(String broker, String room, double attemptStartedAt, double endedAt) {
        Failure f = pending;
        if (f == null || attemptStartedAt < f.at()) return null;
        pending = null;
        if (f.broker().equals(broker)) return null;
        return new Failover(f.broker(), f.room(), broker, room, f.reason(), endedAt - f.at());
    }

    synchronized Failure pending() {
        return pending;
    }
}
