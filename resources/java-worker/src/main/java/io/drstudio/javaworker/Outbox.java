package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONObject;
import com.alibaba.fastjson2.JSONWriter;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything the worker sends up. One writer thread owns stdout, so frames never interleave;
 * ledger rows are batched and flushed every {@link #FLUSH_MS} ms while pending, and on demand
 * before answering the requests that promise it (client.stop, workload.stop, shutdown).
 */
final class Outbox {
    static final int MAX_FRAME_BYTES = 16 * 1024 * 1024;
    static final long FLUSH_MS = 25;
    /** Rows per frame, far below the frame limit even for long error strings. */
    private static final int ROWS_PER_FRAME = 2000;

    private final DataOutputStream out;
    private final BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
    private final List<Map<String, Object>> rows = new ArrayList<>();
    private final Object drained = new Object();
    /** Frames queued and frames on stdout: drain() waits until the second catches up. */
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final Thread writer;
    private final Thread flusher;

    Outbox(OutputStream stdout) {
        this.out = new DataOutputStream(stdout);
        this.writer = new Thread(this::writeLoop, "drstudio-frame-writer");
        this.writer.setDaemon(true);
        this.flusher = new Thread(this::flushLoop, "drstudio-row-flusher");
        this.flusher.setDaemon(true);
        this.writer.start();
        this.flusher.start();
    }

    /** Encodes one frame now (on the caller's thread) and queues it behind earlier ones. */
    void frame(Map<String, Object> message) {
        byte[] body = JSON.toJSONBytes(message, JSONWriter.Feature.WriteNulls);
        if (body.length > MAX_FRAME_BYTES) {
            Log.error("dropping a frame of " + body.length + " bytes (limit " + MAX_FRAME_BYTES + ")");
            return;
        }
        synchronized (frames) {
            frames.add(body);
            queued.incrementAndGet();
        }
    }

    /** Queues one ledger row (`k` = s, d or e). */
    void row(Map<String, Object> row) {
        synchronized (rows) {
            rows.add(row);
        }
    }

    /** An `e` row: a ledger event of `kind` with its data. */
    void event(String kind, String clientId, String room, Map<String, Object> data) {
        event(kind, clientId, room, data, Clock.now());
    }

    void event(String kind, String clientId, String room, Map<String, Object> data, double atMs) {
        JSONObject e = new JSONObject();
        e.put("k", "e");
        e.put("kind", kind);
        e.put("clientId", clientId);
        e.put("room", room);
        e.put("atMs", atMs);
        e.put("data", data);
        row(e);
    }

    /** Sends every pending row now, ahead of whatever is queued after this call. */
    void flushRows() {
        synchronized (rows) {
            for (int i = 0; i < rows.size(); i += ROWS_PER_FRAME) {
                JSONObject f = new JSONObject();
                f.put("t", "rows");
                f.put("rows", new ArrayList<>(rows.subList(i, Math.min(rows.size(), i + ROWS_PER_FRAME))));
                frame(f);
            }
            rows.clear();
        }
    }

    void ok(long id, Object result) {
        JSONObject f = new JSONObject();
        f.put("t", "res");
        f.put("id", id);
        f.put("ok", true);
        f.put("result", result == null ? new JSONObject() : result);
        frame(f);
    }

    void fail(long id, String message, String code) {
        JSONObject err = new JSONObject();
        err.put("message", message);
        if (code != null) err.put("code", code);
        JSONObject f = new JSONObject();
        f.put("t", "res");
        f.put("id", id);
        f.put("ok", false);
        f.put("error", err);
        frame(f);
    }

    /** The engine's `choice` stream: which name server and broker a client uses now. */
    void choice(Map<String, Object> choice) {
        JSONObject f = new JSONObject();
        f.put("t", "choice");
        f.put("choice", choice);
        frame(f);
    }

    void log(String level, String message, String clientId) {
        JSONObject f = new JSONObject();
        f.put("t", "log");
        f.put("level", level);
        f.put("message", message);
        if (clientId != null) f.put("clientId", clientId);
        frame(f);
    }

    /** Flushes rows and waits (up to `timeoutMs`) until every queued frame is on stdout. */
    void drain(long timeoutMs) throws InterruptedException {
        flushRows();
        long target = queued.get();
        long deadline = System.currentTimeMillis() + timeoutMs;
        synchronized (drained) {
            while (written.get() < target && System.currentTimeMillis() < deadline) {
                drained.wait(10);
            }
        }
    }

    private void writeLoop() {
        long n = 0;
        try {
            while (true) {
                byte[] body = frames.poll(50, TimeUnit.MILLISECONDS);
                if (body == null) continue;
                out.writeInt(body.length);
                out.write(body);
                n++;
                // Flush when caught up, and every 64 frames under a steady stream.
                if (frames.isEmpty() || n % 64 == 0) {
                    out.flush();
                    written.set(n);
                    synchronized (drained) {
                        drained.notifyAll();
                    }
                }
            }
        } catch (IOException e) {
            // stdout is gone: so is the engine. Die the way a crashed client host dies.
            Log.error("stdout closed (" + e.getMessage() + "); exiting");
            Runtime.getRuntime().halt(0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void flushLoop() {
        while (true) {
            try {
                Thread.sleep(FLUSH_MS);
                flushRows();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                Log.error("row flush failed: " + e);
            }
        }
    }
}
