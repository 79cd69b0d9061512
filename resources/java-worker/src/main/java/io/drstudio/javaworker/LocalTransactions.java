package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONObject;
import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.function.LongSupplier;
import java.util.function.Consumer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A transactional producer's TransactionListener, playing the application's local transactions:
 * executeLocalTransaction records the slot's planned decision (keyed by the message key) and answers
 * it at once, or UNKNOW to leave it to a check-back; checkLocalTransaction answers what was recorded,
 * UNKNOW for a key this producer never decided (e.g. one sent before a restart, or by another
 * producer of the group), and reports each check. A decision is forgotten RETENTION_MS after it
 * was made, past the point where a broker stops asking (transactionCheckMax = 15 rounds of
 * transactionCheckInterval = 30 s by default in 5.x, 60 s in 4.x), so memory follows that window,
 * not the run. A timed-out attempt can leave a second half message of the same key on another
 * broker: the stock client's check carries no broker name, so the broker that asks is told by the
 * checked message's store host, compared with the one that acknowledged the half message
 * ({@link #stored}); another broker's half message is rolled back rather than committed twice, as
 * our lane does.
 */
final class LocalTransactions implements TransactionListener {
    static final long RETENTION_MS = 20 * 60_000L;

    /** {@code storeHost}: the broker address that stored the acknowledged half message, null until known. */
    private record Decided(LocalTransactionState state, long at, SocketAddress storeHost) {}

    /** In insertion (time) order; guarded by itself: sends and check-backs come from several threads. */
    private final LinkedHashMap<String, Decided> decided = new LinkedHashMap<>();
    /** Receives {key, brokerName, answer} of every check-back. */
    private final Consumer<JSONObject> checked;

    private final LongSupplier clock;
    private final long retentionMs;

    LocalTransactions(Consumer<JSONObject> checked) {
        this(checked, System::currentTimeMillis, RETENTION_MS);
    }

    LocalTransactions(Consumer<JSONObject> checked, LongSupplier clock, long retentionMs) {
        this.checked = checked;
        this.clock = clock;
        this.retentionMs = retentionMs;
    }

    @Override
    public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
        TransactionPlan plan = (TransactionPlan) arg;
        record(msg.getKeys(), plan.decision());
        return plan.viaCheck() ? LocalTransactionState.UNKNOW : plan.decision();
    }

    @Override
    public LocalTransactionState checkLocalTransaction(MessageExt msg) {
        String key = msg.getKeys();
        Decided d = key == null ? null : decidedOf(key);
        SocketAddress asking = msg.getStoreHost();
        boolean stray = d != null && d.storeHost() != null && asking != null && !d.storeHost().equals(asking);
        LocalTransactionState answer = d == null ? LocalTransactionState.UNKNOW
            : stray ? LocalTransactionState.ROLLBACK_MESSAGE : d.state();
        JSONObject data = new JSONObject();
        data.put("key", key);
        data.put("brokerName", msg.getBrokerName());
        data.put("answer", TransactionPlan.name(answer));
        if (stray) data.put("stray", true);
        // The broker that stored the acknowledged half message asked: the rule had both addresses.
        else if (d != null && d.storeHost() != null && asking != null) data.put("sameBroker", true);
        checked.accept(data);
        return answer;
    }

    /**
     * The send of `key` failed, so its local transaction never ran: should a half message have been
     * stored anyway, its check-back is told to roll back.
     */
    void sendFailed(String key) {
        record(key, LocalTransactionState.ROLLBACK_MESSAGE);
    }

    /** The half message of `key` was stored, and acknowledged, by the broker at `storeHost`. */
    void stored(String key, SocketAddress storeHost) {
        if (storeHost == null) return;
        synchronized (decided) {
            Decided d = decided.get(key);
            if (d != null) decided.put(key, new Decided(d.state(), d.at(), storeHost));
        }
    }

    /** How many decisions are remembered. */
    int size() {
        synchronized (decided) {
            return decided.size();
        }
    }

    private void record(String key, LocalTransactionState state) {
        long now = clock.getAsLong();
        synchronized (decided) {
            decided.remove(key); // re-inserted at the young end, keeping time order
            decided.put(key, new Decided(state, now, null));
            var it = decided.values().iterator();
            while (it.hasNext() && now - it.next().at() >= retentionMs) it.remove();
        }
    }

    private Decided decidedOf(String key) {
        synchronized (decided) {
            return decided.get(key);
        }
    }
}
