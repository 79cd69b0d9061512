package io.drstudio.rocketmq.dr;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Where the poller gets a room's view of the name servers; {@link #HTTP} in production. */
@FunctionalInterface
public interface ManagementSource {
    List<NameServerEntry> fetch(ManagementNode node, int timeoutMs) throws IOException;

    /** {@code GET <url>/v1/nameservers} of a DR Studio management node. */
    ManagementSource HTTP = (node, timeoutMs) -> {
        String url = node.url().replaceAll("/+$", "") + "/v1/nameservers";
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setConnectTimeout(timeoutMs);
        c.setReadTimeout(timeoutMs);
        try {
            int status = c.getResponseCode();
            if (status != 200) throw new IOException(url + " answered HTTP " + status);
            try (InputStream in = c.getInputStream()) {
                return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), url);
            }
        } finally {
            c.disconnect();
        }
    };

    /** The {@code nameServers} of a /v1/nameservers body; entries without an address are skipped. */
    static List<NameServerEntry> parse(String body, String from) throws IOException {
        JSONArray list;
        try {
            JSONObject o = JSON.parseObject(body);
            list = o == null ? null : o.getJSONArray("nameServers");
        } catch (RuntimeException e) {
            throw new IOException(from + " did not answer JSON: " + e.getMessage(), e);
        }
        if (list == null) throw new IOException(from + " answered without a nameServers list");
        List<NameServerEntry> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JSONObject n = list.getJSONObject(i);
            String address = n.getString("address");
            if (address == null || address.isBlank()) continue;
            String id = n.getString("id");
            out.add(new NameServerEntry(id == null ? address : id, n.getString("room"), address,
                !Boolean.FALSE.equals(n.getBoolean("available"))));
        }
        return out;
    }
}
