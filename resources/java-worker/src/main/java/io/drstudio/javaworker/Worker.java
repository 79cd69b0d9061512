package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker's request handlers (docs/worker-protocol.md). Each request runs on its own thread,
 * so a slow client.start or warm-up never holds up client.state; every request is answered once.
 */
final class Worker {
    static final int PROTOCOL = 1;

    private final Outbox outbox;
    private final WorkerConfig config;
    private final NameServerDirectory directory = new NameServerDirectory();
    private final Map<String, HostedClient> clients = new ConcurrentHashMap<>();
    private final AtomicInteger generation = new AtomicInteger();
    private final ExecutorService requests = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "drstudio-request");
        t.setDaemon(true);
        return t;
    });
    private volatile Workload workload;
    private volatile String room;

    Worker(Outbox outbox, WorkerConfig config) {
        this.outbox = outbox;
        this.config = config;
        this.room = config.room().isEmpty() ? null : config.room();
        Thread observer = new Thread(this::observeLoop, "drstudio-observer");
        observer.setDaemon(true);
        observer.start();
    }

    /** Runs one request off the reader thread and answers it. */
    void dispatch(JSONObject frame) {
        if (!"req".equals(frame.getString("t"))) {
            outbox.log("warn", "ignoring a frame that is not a request: " + frame.getString("t"), null);
            return;
        }
        long id = frame.getLongValue("id");
        String op = frame.getString("op");
        JSONObject args = frame.getJSONObject("args");
        JSONObject a = args == null ? new JSONObject() : args;
        requests.execute(() -> {
            try {
                Object result = handle(op, a);
                outbox.ok(id, result);
                if ("shutdown".equals(op)) exit();
            } catch (WorkerException e) {
                outbox.fail(id, e.getMessage(), e.code);
            } catch (Throwable e) {
                Log.error(op + " failed: " + e);
                e.printStackTrace(System.err);
                outbox.fail(id, op + " failed: " + HostedClient.reason(e), "failed");
            }
        });
    }

    private Object handle(String op, JSONObject a) throws Exception {
        switch (op == null ? "" : op) {
            case "hello":
                return hello(a);
            case "client.create":
                return create(a);
            case "client.start":
                return start(a);
            case "client.stop":
                return stop(a);
            case "client.remove":
                return remove(a);
            case "client.state":
                return state(a);
            case "warmup":
                return Warmup.run(a, this::producer);
            case "workload.start":
                return workloadStart(a);
            case "workload.stop":
                return workloadStop(a);
            case "shutdown":
                return shutdown();
            default:
                throw new WorkerException("unknown-op", "the Java worker does not know op \"" + op + "\"");
        }
    }

    private JSONObject hello(JSONObject a) {
        int protocol = a.getIntValue("protocol");
        if (protocol != PROTOCOL) {
            throw new WorkerException("protocol", "the engine speaks worker protocol " + protocol
                + " but this Java worker speaks " + PROTOCOL + "; rebuild it with `npm run setup`");
        }
        String r = a.getString("room");
        if (r != null && room != null && !r.equals(room)) {
            throw new WorkerException("wrong-room", "worker " + config.workerId() + " was started for room " + room
                + ", not " + r);
        }
        if (r != null) room = r;
        JSONObject out = new JSONObject();
        out.put("protocol", PROTOCOL);
        out.put("runtime", "java");
        out.put("pid", ProcessHandle.current().pid());
        JSONArray lanes = new JSONArray();
        lanes.add(config.lane().wire);
        out.put("lanes", lanes);
        return out;
    }

    private JSONObject create(JSONObject a) {
        ClientSpec spec = ClientSpec.parse(a.getJSONObject("spec"));
        config.check(spec);
        directory.learn(spec);
        int gen = generation.incrementAndGet();
        HostedClient c = spec.isProducer()
            ? new JavaProducer(spec, outbox, directory, gen)
            : new JavaConsumer(spec, outbox, directory, gen);
        if (clients.putIfAbsent(spec.id, c) != null) {
            throw new WorkerException("exists", "client " + spec.id + " already exists in worker " + config.workerId()
                + "; remove it first (client.remove)");
        }
        return new JSONObject();
    }

    private JSONObject start(JSONObject a) throws Exception {
        HostedClient c = client(a.getString("id"));
        long timeout = a.containsKey("timeoutMs") ? a.getLongValue("timeoutMs") : 30_000;
        if (c.stopped) {
            throw new WorkerException("stopped", "client " + c.spec.id + " was stopped; remove and create it again to restart");
        }
        if (c.alive) return cidResult(c);
        try {
            c.start(timeout);
        } catch (Exception e) {
            // Leave nothing half-started behind: a failed start is a stopped client.
            Log.error(c.spec.id + " did not start: " + e);
            e.printStackTrace(System.err);
            c.stop("graceful");
            clients.remove(c.spec.id, c);
            outbox.flushRows();
            if (e instanceof WorkerException) throw e;
            throw new WorkerException("start-failed", c.spec.role + " " + c.spec.id + " did not start: "
                + HostedClient.reason(e), e);
        }
        return cidResult(c);
    }

    private static JSONObject cidResult(HostedClient c) {
        JSONObject out = new JSONObject();
        out.put("cid", c.cid);
        return out;
    }

    private JSONObject stop(JSONObject a) {
        HostedClient c = client(a.getString("id"));
        String mode = a.getString("mode");
        if (!"graceful".equals(mode) && !"crash".equals(mode)) {
            throw new WorkerException("bad-args", "client.stop mode is \"" + mode + "\"; use graceful or crash");
        }
        c.stop(mode);
        outbox.flushRows();
        return new JSONObject();
    }

    private JSONObject remove(JSONObject a) {
        HostedClient c = client(a.getString("id"));
        c.stop("graceful");
        clients.remove(c.spec.id, c);
        outbox.flushRows();
        return new JSONObject();
    }

    private JSONObject state(JSONObject a) {
        JSONArray ids = a.getJSONArray("ids");
        List<HostedClient> list = new ArrayList<>();
        if (ids == null) {
            list.addAll(clients.values());
        } else {
            for (int i = 0; i < ids.size(); i++) {
                HostedClient c = clients.get(ids.getString(i));
                if (c != null) list.add(c);
            }
        }
        JSONArray out = new JSONArray();
        for (HostedClient c : list) out.add(c.state());
        JSONObject r = new JSONObject();
        r.put("clients", out);
        return r;
    }

    private synchronized JSONObject workloadStart(JSONObject a) {
        Workload w = workload;
        if (w != null && !w.finished()) {
            throw new WorkerException("busy", "a workload is already running in worker " + config.workerId()
                + "; stop it first (workload.stop)");
        }
        Workload next = new Workload(a, this::producer, outbox, room);
        workload = next;
        next.start();
        return new JSONObject();
    }

    private JSONObject workloadStop(JSONObject a) throws InterruptedException {
        Workload w;
        synchronized (this) {
            w = workload;
            workload = null;
        }
        JSONObject result;
        if (w == null) {
            result = new JSONObject();
            result.put("skipped", new JSONObject());
            result.put("scheduled", new JSONObject());
        } else {
            result = w.stop(a.containsKey("waitMs") ? a.getLongValue("waitMs") : 10_000);
        }
        outbox.flushRows();
        return result;
    }

    private JSONObject shutdown() throws InterruptedException {
        Workload w = workload;
        if (w != null) w.stop(0);
        List<Thread> stops = new ArrayList<>();
        for (HostedClient c : clients.values()) {
            Thread t = new Thread(() -> c.stop("graceful"), "drstudio-stop-" + c.spec.id);
            t.setDaemon(true);
            t.start();
            stops.add(t);
        }
        for (Thread t : stops) t.join(10_000);
        clients.clear();
        outbox.flushRows();
        return new JSONObject();
    }

    /** After the shutdown answer is on stdout. */
    private void exit() {
        try {
            outbox.drain(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().halt(0);
    }

    /** A live producer by id, for the schedule and warm-up (null when absent or a consumer). */
    JavaProducer producer(String id) {
        HostedClient c = clients.get(id);
        return c instanceof JavaProducer p ? p : null;
    }

    private HostedClient client(String id) {
        HostedClient c = id == null ? null : clients.get(id);
        if (c == null) {
            throw new WorkerException("unknown-client", "no client " + id + " in worker " + config.workerId()
                + "; create it first (client.create)");
        }
        return c;
    }

    /** Polls which name server each client uses (the Java client has no event for it). */
    private void observeLoop() {
        while (true) {
            try {
                Thread.sleep(200);
                for (HostedClient c : clients.values()) c.observeNamesrv();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                Log.warn("observer: " + e);
            }
        }
    }
}
