package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONObject;
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
 * not the run. Unlike our lane it cannot tell which broker asks (the stock client's check gives no
 * reliable broker name), so a half message a timed-out attempt left on a second broker is answered
 * like the first: committed twice, a duplicate.
 */
final class LocalTransactions implements TransactionListener {
    static final long RETENTION_MS = 20 * 60_000L;

    private record Decided(LocalTransactionState state, long at) {}

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
        LocalTransactionState answer = key == null ? null : decisionOf(key);
        if (answer == null) answer = LocalTransactionState.UNKNOW;
        JSONObject data = new JSONObject();
        data.put("key", key);
        data.put("brokerName", msg.getBrokerName());
        data.put("answer", TransactionPlan.name(answer));
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
            decided.put(key, new Decided(state, now));
            var it = decided.values().iterator();
            while (it.hasNext() && now - it.next().at() >= retentionMs) it.remove();
        }
    }

    private LocalTransactionState decisionOf(String key) {
        synchronized (decided) {
            Decided d = decided.get(key);
            return d == null ? null : d.state();
        }
    }
}
