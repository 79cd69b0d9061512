package io.drstudio.javaworker;

import com.alibaba.fastjson2.JSONObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * producer of the group), and reports each check.
 */
final class LocalTransactions implements TransactionListener {
    private final Map<String, LocalTransactionState> decided = new ConcurrentHashMap<>();
    /** Receives {key, brokerName, answer} of every check-back. */
    private final Consumer<JSONObject> checked;

    LocalTransactions(Consumer<JSONObject> checked) {
        this.checked = checked;
    }

    @Override
    public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
        TransactionPlan plan = (TransactionPlan) arg;
        decided.put(msg.getKeys(), plan.decision());
        return plan.viaCheck() ? LocalTransactionState.UNKNOW : plan.decision();
    }

    @Override
    public LocalTransactionState checkLocalTransaction(MessageExt msg) {
        String key = msg.getKeys();
        LocalTransactionState answer = key == null ? null : decided.get(key);
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
        decided.put(key, LocalTransactionState.ROLLBACK_MESSAGE);
    }
}
