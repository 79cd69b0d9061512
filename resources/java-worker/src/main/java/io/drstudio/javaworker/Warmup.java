package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Unrecorded sends until every listed producer answers fast and steadily: its last `streak` sends
 * clean (acknowledged, one attempt, no broker isolated), at most a tenth of them over fastMs.
 * Warm-up messages carry their own tag, so the workload's consumers never see them.
 */
final class Warmup {
    private static final byte[] BODY = "warm-up".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private Warmup() {
    }

    static JSONObject run(JSONObject a, Function<String, JavaProducer> producers) throws InterruptedException {
        JSONArray ids = a.getJSONArray("ids");
        long timeoutMs = a.getLongValue("timeoutMs", 30_000);
        double fastMs = a.getDoubleValue("fastMs");
        int streak = Math.max(1, a.getIntValue("streak", 5));
        String tag = a.getString("tag");
        if (ids == null || tag == null) throw new WorkerException("bad-args", "warmup needs args.ids and args.tag");
        long deadline = System.currentTimeMillis() + timeoutMs;
        Map<String, Boolean> warmed = new LinkedHashMap<>();
        Map<String, Thread> threads = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.getString(i);
            JavaProducer p = producers.apply(id);
            if (p == null) {
                warmed.put(id, false);
                continue;
            }
            Thread t = new Thread(() -> {
                boolean ok = warm(p, tag, fastMs > 0 ? fastMs : 200, streak, deadline);
                synchronized (warmed) {
                    warmed.put(id, ok);
                }
            }, "drstudio-warmup-" + id);
            t.setDaemon(true);
            threads.put(id, t);
            t.start();
        }
        for (Thread t : threads.values()) t.join(Math.max(1, deadline - System.currentTimeMillis() + 5000));
        JSONObject result = new JSONObject();
        JSONObject w = new JSONObject();
        synchronized (warmed) {
            for (int i = 0; i < ids.size(); i++) w.put(ids.getString(i), Boolean.TRUE.equals(warmed.get(ids.getString(i))));
        }
        result.put("warmed", w);
        return result;
    }

    private static boolean warm(JavaProducer p, String tag, double fastMs, int streak, long deadline) {
        Window window = new Window(streak, fastMs);
        int n = 0;
        while (System.currentTimeMillis() < deadline && p.alive) {
            JavaProducer.Outcome o = p.send(p.spec.id + "-warmup-" + (++n), tag, BODY, null, false);
            boolean clean = o.acked() && o.attempts() == 1 && p.isolated().isEmpty();
            if (window.add(clean, o.endedAt() - o.startedAt())) return true;
            if (!o.acked()) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return false;
                }
            }
        }
        return false;
    }

    /**
     * The last `size` sends: warm when all were clean (acknowledged at the first attempt, nothing
     * isolated) and at most a tenth slower than fastMs, so one slow send does not restart the count
     * (the Node worker's warmup-window.ts, the same rule).
     */
    static final class Window {
        private final int size;
        private final double fastMs;
        private final java.util.ArrayDeque<double[]> recent = new java.util.ArrayDeque<>();

        Window(int size, double fastMs) {
            this.size = size;
            this.fastMs = fastMs;
        }

        boolean add(boolean clean, double latencyMs) {
            recent.addLast(new double[] {clean ? 1 : 0, latencyMs < fastMs ? 1 : 0});
            if (recent.size() > size) recent.removeFirst();
            if (recent.size() < size) return false;
            int slow = 0;
            for (double[] s : recent) {
                if (s[0] == 0) return false;
                if (s[1] == 0) slow++;
            }
            return slow <= size / 10;
        }
    }
}
