package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONObject;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The open-loop schedule: producer p fires at t0 + offsetMs + k·1000/rate whether or not earlier
 * sends finished. A due send whose producer is down, or has maxInflight sends outstanding, is
 * skipped and counted, never made late; each send's row carries the time the schedule wanted it,
 * so latency is measured from there (safe from coordinated omission). Producers are looked up by
 * id at every due send, so one removed and created again (a restart) is picked up.
 */
final class Workload {
    /** Per producer of the schedule. */
    static final class Slot {
        final String id;
        final double rate;
        final double first;
        final byte[] body;
        long k;
        int inflight;
        long down;
        long inflightCap;
        long unreportedDown;
        long unreportedCap;
        double reportedAt = Double.NEGATIVE_INFINITY;
        String room;
        /** Ordered workloads: sharding keys; 0 = unordered. */
        int orderKeys;
        /** Transactional workloads: what each message's local transaction decides; null = plain. */
        TransactionPlan.Shares transaction;
        /** Delayed workloads: how long after its slot each message is due; 0 = delivered at once. */
        double delayMs;

        Slot(String id, double rate, double first, int messageSize) {
            this.id = id;
            this.rate = rate;
            this.first = first;
            this.body = new byte[Math.max(0, messageSize)];
            Arrays.fill(body, (byte) 'x');
        }

        /** When the k-th send (0-based) is due. */
        double due(long k) {
            return first + k * 1000.0 / rate;
        }

        /**
         * When the broker's timer is asked to deliver a delayed send scheduled at `scheduledAt`: due
         * from the schedule's slot, not the send, so a late send shows as lateness rather than
         * hiding it. Whole ms, as the broker refuses a fractional TIMER_DELIVER_MS.
         */
        long dueAt(double scheduledAt) {
            return Math.round(scheduledAt + delayMs);
        }
    }

    private static final double SKIP_REPORT_MS = 1000;

    private final Map<String, Slot> slots = new LinkedHashMap<>();
    private final Double end;
    private final int maxInflight;
    private final String tag;
    private final Function<String, JavaProducer> producers;
    private final Outbox outbox;
    private final String workerRoom;
    private final Thread thread;
    private volatile boolean running = true;

    Workload(JSONObject args, Function<String, JavaProducer> producers, Outbox outbox, String workerRoom) {
        double t0 = number(args, "t0");
        Object e = args.get("end");
        this.end = e instanceof Number n ? n.doubleValue() : null;
        this.maxInflight = Math.max(1, (int) number(args, "maxInflight"));
        this.tag = args.getString("tag");
        if (tag == null || tag.isBlank()) throw new WorkerException("bad-args", "workload.start needs args.tag");
        this.producers = producers;
        this.outbox = outbox;
        this.workerRoom = workerRoom;
        var list = args.getJSONArray("producers");
        if (list == null) throw new WorkerException("bad-args", "workload.start needs args.producers");
        for (int i = 0; i < list.size(); i++) {
            Slot slot = slot(list.getJSONObject(i), i, t0);
            slots.put(slot.id, slot);
        }
        this.thread = new Thread(this::run, "drstudio-workload");
        this.thread.setDaemon(true);
    }

    /** One entry of args.producers: its schedule and what kind of message it sends. */
    static Slot slot(JSONObject p, int i, double t0) {
        String id = p.getString("id");
        double rate = number(p, "rate");
        if (id == null || !(rate > 0)) {
            throw new WorkerException("bad-args", "workload.start args.producers[" + i + "] needs an id and a rate > 0");
        }
        Object off = p.get("offsetMs");
        double offset = off instanceof Number n ? n.doubleValue() : 0;
        Object size = p.get("messageSize");
        Slot slot = new Slot(id, rate, t0 + offset, size instanceof Number n ? n.intValue() : 128);
        Object keys = p.get("orderKeys");
        if (keys != null) {
            if (!(keys instanceof Number n) || n.intValue() < 1) {
                throw new WorkerException("bad-args", "workload.start args.producers[" + i + "].orderKeys must be a number >= 1");
            }
            slot.orderKeys = ((Number) keys).intValue();
        }
        slot.transaction = transactionShares(p, i);
        slot.delayMs = delayMs(p, i);
        // The engine never combines kinds; never send one of them as another.
        if (slot.orderKeys > 0 && slot.transaction != null) {
            throw new WorkerException("bad-args", "workload.start args.producers[" + i + "] cannot be both ordered and transactional");
        }
        if (slot.delayMs > 0 && (slot.orderKeys > 0 || slot.transaction != null)) {
            String other = slot.orderKeys > 0 ? "ordered" : "transactional";
            throw new WorkerException("bad-args", "workload.start args.producers[" + i + "] cannot be both delayed and " + other);
        }
        return slot;
    }

    void start() {
        thread.start();
    }

    private void run() {
        try {
            while (running) {
                Slot next = null;
                double nextDue = Double.POSITIVE_INFINITY;
                synchronized (this) {
                    for (Slot s : slots.values()) {
                        double d = s.due(s.k);
                        if (end != null && d >= end) continue;
                        if (d < nextDue) {
                            nextDue = d;
                            next = s;
                        }
                    }
                }
                if (next == null) return;
                double now = Clock.now();
                if (nextDue > now) {
                    // Wake at least every 50 ms so stop() is prompt.
                    Clock.sleepUntil(Math.min(nextDue, now + 50));
                    continue;
                }
                fire(next, nextDue);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            synchronized (this) {
                for (Slot s : slots.values()) reportSkips(s, true);
            }
        }
    }

    private void fire(Slot s, double scheduledAt) {
        long seq;
        JavaProducer p = producers.apply(s.id);
        synchronized (this) {
            seq = ++s.k;
            if (p != null) s.room = p.spec.room;
            if (p == null || !p.alive) {
                s.down++;
                s.unreportedDown++;
                reportSkips(s, false);
                return;
            }
            if (s.inflight >= maxInflight) {
                s.inflightCap++;
                s.unreportedCap++;
                reportSkips(s, false);
                return;
            }
            s.inflight++;
        }
        String key = s.id + "-" + seq;
        boolean queued;
        if (s.orderKeys > 0) {
            // Slot seq (from 1) is key (seq-1) mod keys, that key's message number (seq-1) div keys.
            String orderKey = s.id + ":k" + ((seq - 1) % s.orderKeys);
            long orderSeq = (seq - 1) / s.orderKeys;
            queued = p.submitOrdered(orderKey, () -> {
                try {
                    // Queued behind its key when the producer was crash-stopped: nothing more is sent.
                    if (p.alive) p.send(key, tag, s.body, scheduledAt, true, orderKey, orderSeq);
                } finally {
                    release(s);
                }
            });
        } else {
            TransactionPlan plan = s.transaction == null ? null : s.transaction.plan(key);
            Long dueAt = s.delayMs > 0 ? s.dueAt(scheduledAt) : null;
            queued = p.submit(() -> {
                try {
                    if (plan != null) {
                        p.sendInTransaction(key, tag, s.body, scheduledAt, plan);
                    } else if (dueAt != null) {
                        p.sendDelayed(key, tag, s.body, scheduledAt, dueAt);
                    } else {
                        p.send(key, tag, s.body, scheduledAt, true);
                    }
                } finally {
                    release(s);
                }
            });
        }
        if (!queued) {
            synchronized (this) {
                s.inflight--;
                s.down++;
                s.unreportedDown++;
                reportSkips(s, false);
            }
        }
    }

    private synchronized void release(Slot s) {
        s.inflight--;
        notifyAll();
    }

    /** sends-skipped at most once a second per producer while it skips, and the rest at the end. */
    private void reportSkips(Slot s, boolean last) {
        if (s.unreportedDown == 0 && s.unreportedCap == 0) return;
        double now = Clock.now();
        if (!last && now - s.reportedAt < SKIP_REPORT_MS) return;
        JSONObject data = new JSONObject();
        data.put("down", s.unreportedDown);
        data.put("inflightCap", s.unreportedCap);
        outbox.event("sends-skipped", s.id, s.room != null ? s.room : workerRoom, data);
        s.unreportedDown = 0;
        s.unreportedCap = 0;
        s.reportedAt = now;
    }

    /** Stops the schedule, waits up to waitMs for in-flight sends, returns skip and schedule counts. */
    JSONObject stop(long waitMs) throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(2000);
        long deadline = System.currentTimeMillis() + waitMs;
        synchronized (this) {
            while (inflight() > 0 && System.currentTimeMillis() < deadline) {
                wait(Math.max(1, Math.min(50, deadline - System.currentTimeMillis())));
            }
            JSONObject skipped = new JSONObject();
            JSONObject scheduled = new JSONObject();
            for (Slot s : slots.values()) {
                JSONObject c = new JSONObject();
                c.put("down", s.down);
                c.put("inflightCap", s.inflightCap);
                skipped.put(s.id, c);
                scheduled.put(s.id, s.k);
            }
            JSONObject out = new JSONObject();
            out.put("skipped", skipped);
            out.put("scheduled", scheduled);
            return out;
        }
    }

    boolean finished() {
        return !thread.isAlive();
    }

    private int inflight() {
        int n = 0;
        for (Slot s : slots.values()) n += s.inflight;
        return n;
    }

    /** args.producers[i].transaction: {commitShare, checkShare}, each 0..1; null when absent. */
    private static TransactionPlan.Shares transactionShares(JSONObject p, int i) {
        Object t = p.get("transaction");
        if (t == null) return null;
        String at = "workload.start args.producers[" + i + "].transaction";
        if (!(t instanceof JSONObject tx)) throw new WorkerException("bad-args", at + " must be an object");
        return new TransactionPlan.Shares(share(tx, "commitShare", at), share(tx, "checkShare", at));
    }

    /** args.producers[i].delayMs: 1 s..1 h after the slot; 0 when absent (the message is not delayed). */
    private static double delayMs(JSONObject p, int i) {
        Object d = p.get("delayMs");
        if (d == null) return 0;
        if (!(d instanceof Number n) || !(n.doubleValue() >= 1000 && n.doubleValue() <= 3600000)) {
            throw new WorkerException("bad-args",
                "workload.start args.producers[" + i + "].delayMs must be a number between 1000 and 3600000");
        }
        return n.doubleValue();
    }

    private static double share(JSONObject tx, String key, String at) {
        Object v = tx.get(key);
        if (!(v instanceof Number n) || !(n.doubleValue() >= 0 && n.doubleValue() <= 1)) {
            throw new WorkerException("bad-args", at + "." + key + " must be a number between 0 and 1");
        }
        return n.doubleValue();
    }

    private static double number(JSONObject o, String key) {
        Object v = o.get(key);
        if (!(v instanceof Number n)) throw new WorkerException("bad-args", key + " must be a number");
        return n.doubleValue();
    }
}
