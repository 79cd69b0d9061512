package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Unrecorded sends until every listed producer answers fast and steadily: `streak` clean sends in
 * a row (acknowledged, one attempt, under fastMs, no broker isolated). Warm-up messages carry their
 * own tag, so the workload's consumers never see them.
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
        int clean = 0;
        int n = 0;
        while (clean < streak && System.currentTimeMillis() < deadline && p.alive) {
            JavaProducer.Outcome o = p.send(p.spec.id + "-warmup-" + (++n), tag, BODY, null, false);
            boolean ok = o.acked() && o.attempts() == 1 && o.endedAt() - o.startedAt() < fastMs && p.isolated().isEmpty();
            clean = ok ? clean + 1 : 0;
            if (!o.acked()) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return false;
                }
            }
        }
        return clean >= streak;
    }
}
