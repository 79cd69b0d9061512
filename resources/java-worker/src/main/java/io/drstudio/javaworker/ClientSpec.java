package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One client as the engine describes it (`client.create` args.spec, see protocol.ts ClientSpec). */
final class ClientSpec {
    record ManagementNode(String id, String room, String url) {
    }

    record NameServer(String id, String room, String address) {
    }

    final String id;
    final String role;
    final String room;
    final Lane lane;
    final String topic;
    final String group;
    final String tag;
    /** Kept for parity with the spec; the stock Java client has no room preference to apply it to. */
    final List<String> roomOrder;
    final List<ManagementNode> managementNodes;
    final List<NameServer> nameServers;
    final Map<String, String> brokerRooms;
    final Map<String, Long> tuning;
    /** Consumers of an ordered workload: MessageListenerOrderly (queue locks at the broker). */
    final boolean orderly;
    /** Producers of a transactional workload: a TransactionMQProducer with our local transactions. */
    final boolean transactional;
    /** Ordered sends on java-dr: "wait" (the default) or "reroute", as our client's orderPolicy. */
    final String orderPolicy;

    private ClientSpec(JSONObject s) {
        this.id = required(s, "id");
        this.role = required(s, "role");
        if (!role.equals("producer") && !role.equals("consumer")) {
            throw bad("spec.role of " + id + " is \"" + role + "\"; use \"producer\" or \"consumer\"");
        }
        this.room = required(s, "room");
        String laneName = required(s, "lane");
        this.lane = Lane.parse(laneName);
        if (lane == null) {
            throw new WorkerException("wrong-lane", "client " + id + " is on lane \"" + laneName
                + "\"; the Java worker hosts only " + Lane.names() + ". Run it in the room worker instead.");
        }
        this.topic = required(s, "topic");
        this.group = required(s, "group");
        this.tag = required(s, "tag");
        this.roomOrder = strings(s.getJSONArray("roomOrder"));
        this.managementNodes = new ArrayList<>();
        JSONArray mgmt = s.getJSONArray("managementNodes");
        if (mgmt != null) {
            for (int i = 0; i < mgmt.size(); i++) {
                JSONObject m = mgmt.getJSONObject(i);
                managementNodes.add(new ManagementNode(m.getString("id"), m.getString("room"), m.getString("url")));
            }
        }
        this.nameServers = new ArrayList<>();
        JSONArray ns = s.getJSONArray("nameServers");
        if (ns != null) {
            for (int i = 0; i < ns.size(); i++) {
                JSONObject n = ns.getJSONObject(i);
                nameServers.add(new NameServer(n.getString("id"), n.getString("room"), n.getString("address")));
            }
        }
        if (managementNodes.isEmpty() && nameServers.isEmpty()) {
            throw bad("client " + id + " has neither spec.managementNodes nor spec.nameServers; "
                + "give it its room's management node or a static name-server list");
        }
        this.brokerRooms = new LinkedHashMap<>();
        JSONObject br = s.getJSONObject("brokerRooms");
        if (br != null) {
            for (String k : br.keySet()) brokerRooms.put(k, br.getString(k));
        }
        this.orderly = Boolean.TRUE.equals(s.getBoolean("orderly"));
        this.transactional = Boolean.TRUE.equals(s.getBoolean("transactional"));
        this.tuning = new LinkedHashMap<>();
        JSONObject t = s.getJSONObject("tuning");
        String policy = t == null ? null : t.getString("orderPolicy");
        if (policy != null && !policy.equals("wait") && !policy.equals("reroute")) {
            throw bad("client " + id + ": tuning.orderPolicy must be wait or reroute, not " + policy);
        }
        this.orderPolicy = policy == null ? "wait" : policy;
        if (t != null) {
            for (String k : t.keySet()) {
                Object v = t.get(k);
                if (v instanceof Number n) tuning.put(k, n.longValue());
            }
        }
    }

    static ClientSpec parse(JSONObject spec) {
        if (spec == null) throw bad("client.create needs args.spec");
        return new ClientSpec(spec);
    }

    boolean isProducer() {
        return role.equals("producer");
    }

    /** A tuning value in ms, or `fallback` when the engine left it out. */
    long tuning(String key, long fallback) {
        Long v = tuning.get(key);
        return v == null || v <= 0 ? fallback : v;
    }

    /** Room of a broker group; null when the engine did not say. */
    String brokerRoom(String brokerName) {
        return brokerName == null ? null : brokerRooms.get(brokerName);
    }

    /** The own room's management node (listed first by the engine), if any. */
    ManagementNode ownManagementNode() {
        for (ManagementNode m : managementNodes) {
            if (room.equals(m.room())) return m;
        }
        return managementNodes.isEmpty() ? null : managementNodes.get(0);
    }

    /** `a:1;b:2`, the static list for setNamesrvAddr (same room first, as the engine sent it). */
    String staticNamesrvAddr() {
        List<String> out = new ArrayList<>();
        for (NameServer n : nameServers) out.add(n.address());
        return String.join(";", out);
    }

    private static String required(JSONObject s, String key) {
        String v = s.getString(key);
        if (v == null || v.isBlank()) {
            String who = s.getString("id");
            throw bad("spec." + key + " is missing" + (who == null ? "" : " for client " + who) + "; the engine must set it");
        }
        return v;
    }

    private static List<String> strings(JSONArray a) {
        if (a == null) return Collections.emptyList();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) out.add(a.getString(i));
        return out;
    }

    private static WorkerException bad(String message) {
        return new WorkerException("bad-spec", message);
    }
}
