package io.drstudio.javaworker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSONObject;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

class TransactionPlanTest {
    @Test
    void unitHashMatchesTheEnginesVectors() {
        // Computed by the TypeScript unitHash; the two must agree bit for bit.
        assertEquals(0.673274400876835, TransactionPlan.unitHash("producer-1-1#commit"), 1e-12);
        assertEquals(0.2659092117100954, TransactionPlan.unitHash("producer-1-1#check"), 1e-12);
        assertEquals(0.4708105535246432, TransactionPlan.unitHash("producer-2-java-17#commit"), 1e-12);
        assertEquals(0.10019676317460835, TransactionPlan.unitHash("\u00fc-\u20ac#check"), 1e-12);
        assertEquals(0.5043428998906165, TransactionPlan.unitHash(""), 1e-12);
    }

    @Test
    void thePlanComparesEachHashWithItsShare() {
        // producer-1-1: commit hash 0.673, check hash 0.266.
        assertEquals(new TransactionPlan(LocalTransactionState.COMMIT_MESSAGE, true), TransactionPlan.of("producer-1-1", 0.7, 0.3));
        assertEquals(new TransactionPlan(LocalTransactionState.ROLLBACK_MESSAGE, false), TransactionPlan.of("producer-1-1", 0.6, 0.2));
        assertEquals("rollback", TransactionPlan.of("producer-1-1", 0, 1).decisionName());
        assertEquals("commit", new TransactionPlan.Shares(1, 0).plan("any").decisionName());
        assertFalse(new TransactionPlan.Shares(1, 0).plan("any").viaCheck());
        assertTrue(new TransactionPlan.Shares(1, 1).plan("any").viaCheck());
    }

    @Test
    void localTransactionsAnswerAtOnceOrAtTheCheckBack() {
        List<JSONObject> checks = new ArrayList<>();
        LocalTransactions tx = new LocalTransactions(checks::add);
        var commitNow = new TransactionPlan(LocalTransactionState.COMMIT_MESSAGE, false);
        var rollbackLater = new TransactionPlan(LocalTransactionState.ROLLBACK_MESSAGE, true);
        assertEquals(LocalTransactionState.COMMIT_MESSAGE, tx.executeLocalTransaction(message("p-1"), commitNow));
        assertEquals(LocalTransactionState.UNKNOW, tx.executeLocalTransaction(message("p-2"), rollbackLater));
        tx.sendFailed("p-3");

        assertEquals(LocalTransactionState.ROLLBACK_MESSAGE, tx.checkLocalTransaction(checked("p-2", "broker-a")));
        assertEquals(LocalTransactionState.COMMIT_MESSAGE, tx.checkLocalTransaction(checked("p-1", null)));
        assertEquals(LocalTransactionState.ROLLBACK_MESSAGE, tx.checkLocalTransaction(checked("p-3", "broker-b")));
        assertEquals(LocalTransactionState.UNKNOW, tx.checkLocalTransaction(checked("p-4", "broker-a")));
        assertEquals(LocalTransactionState.UNKNOW, tx.checkLocalTransaction(checked(null, "broker-a")));

        assertEquals(5, checks.size());
        assertEquals("p-2", checks.get(0).getString("key"));
        assertEquals("broker-a", checks.get(0).getString("brokerName"));
        assertEquals("rollback", checks.get(0).getString("answer"));
        assertTrue(checks.get(1).containsKey("brokerName"));
        assertNull(checks.get(1).get("brokerName"));
        assertEquals("commit", checks.get(1).getString("answer"));
        assertEquals("rollback", checks.get(2).getString("answer"));
        assertEquals("unknown", checks.get(3).getString("answer"));
        assertEquals("unknown", checks.get(4).getString("answer"));
    }

    @Test
    void localTransactionsAreForgottenPastTheCheckBackWindow() {
        long[] now = {0};
        LocalTransactions tx = new LocalTransactions(c -> {}, () -> now[0], 1000);
        var commitNow = new TransactionPlan(LocalTransactionState.COMMIT_MESSAGE, false);
        tx.executeLocalTransaction(message("old"), commitNow);
        now[0] = 600;
        tx.executeLocalTransaction(message("mid"), commitNow);
        now[0] = 1000;
        tx.sendFailed("new");
        assertEquals(2, tx.size());
        assertEquals(LocalTransactionState.UNKNOW, tx.checkLocalTransaction(checked("old", "broker-a")));
        assertEquals(LocalTransactionState.COMMIT_MESSAGE, tx.checkLocalTransaction(checked("mid", "broker-a")));
        now[0] = 1700;
        tx.sendFailed("newest");
        assertEquals(2, tx.size());
        assertEquals(LocalTransactionState.UNKNOW, tx.checkLocalTransaction(checked("mid", "broker-a")));
    }

    private static Message message(String key) {
        return new Message("T", "dr", key, new byte[1]);
    }

    private static MessageExt checked(String key, String brokerName) {
        MessageExt m = new MessageExt();
        m.setTopic("T");
        if (key != null) m.setKeys(key);
        m.setBrokerName(brokerName);
        return m;
    }
}
