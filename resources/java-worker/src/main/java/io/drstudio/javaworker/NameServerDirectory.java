package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who a name-server address is (id and room), for the ledger's namesrvId/namesrvRoom columns. The
 * Java client only knows addresses: the static list in the spec names them, and so does the
 * management node's JSON view (`/v1/nameservers`), asked at most every few seconds when an address
 * is new. Purely observational: the client's own choice is never changed.
 */
final class NameServerDirectory {
    record Entry(String id, String room) {
    }

    private static final long REFRESH_MS = 3000;
    private final Map<String, Entry> byAddress = new ConcurrentHashMap<>();
    private final Map<String, Long> askedAt = new ConcurrentHashMap<>();

    void learn(ClientSpec spec) {
        for (ClientSpec.NameServer n : spec.nameServers) {
            if (n.address() != null) byAddress.put(n.address(), new Entry(n.id(), n.room()));
        }
    }

    /** Known entry for `address`, or null (without blocking). */
    Entry peek(String address) {
        return address == null ? null : byAddress.get(address);
    }

    /** Known entry, or asks `managementUrl` once per {@link #REFRESH_MS} (blocking, 1 s budget). */
    Entry resolve(String address, String managementUrl) {
        if (address == null) return null;
        Entry e = byAddress.get(address);
        if (e != null || managementUrl == null) return e;
        long now = System.currentTimeMillis();
        Long last = askedAt.get(managementUrl);
        if (last != null && now - last < REFRESH_MS) return null;
        askedAt.put(managementUrl, now);
        fetch(managementUrl);
        return byAddress.get(address);
    }

    private void fetch(String managementUrl) {
        String url = managementUrl.replaceAll("/+$", "") + "/v1/nameservers";
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
            c.setConnectTimeout(1000);
            c.setReadTimeout(1000);
            try (InputStream in = c.getInputStream()) {
                JSONObject body = JSON.parseObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                JSONArray list = body.getJSONArray("nameServers");
                if (list == null) return;
                for (int i = 0; i < list.size(); i++) {
                    JSONObject n = list.getJSONObject(i);
                    String address = n.getString("address");
                    if (address != null) byAddress.put(address, new Entry(n.getString("id"), n.getString("room")));
                }
            } finally {
                c.disconnect();
            }
        } catch (Exception ex) {
            Log.warn("could not read name-server names from " + url + ": " + ex);
        }
    }
}
