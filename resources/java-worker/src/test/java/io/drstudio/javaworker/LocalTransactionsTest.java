package io.drstudio.javaworker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSONObject;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

class LocalTransactionsTest {
    private static final InetSocketAddress BROKER_A = new InetSocketAddress("198.18.1.11", 10911);
    private static final InetSocketAddress BROKER_B = new InetSocketAddress("198.18.2.11", 10911);

    private static MessageExt check(String key, InetSocketAddress storeHost) {
        MessageExt m = new MessageExt();
        m.setKeys(key);
        m.setStoreHost(storeHost);
        return m;
    }

    private static Message sent(String key) {
        Message m = new Message("orders", new byte[0]);
        m.setKeys(key);
        return m;
    }

    @Test
    void aCheckBackFromTheBrokerThatStoredTheHalfMessageGetsTheDecision() {
        List<JSONObject> heard = new ArrayList<>();
        LocalTransactions tx = new LocalTransactions(heard::add);
        assertEquals(LocalTransactionState.UNKNOW,
            tx.executeLocalTransaction(sent("k1"), new TransactionPlan(LocalTransactionState.COMMIT_MESSAGE, true)));
        tx.stored("k1", BROKER_A);
        assertEquals(LocalTransactionState.COMMIT_MESSAGE, tx.checkLocalTransaction(check("k1", BROKER_A)));
        assertEquals("commit", heard.get(0).getString("answer"));
        assertNull(heard.get(0).get("stray"));
        assertTrue(heard.get(0).getBooleanValue("sameBroker"));
    }

    @Test
    void anotherBrokersStrayHalfMessageOfTheSameKeyIsRolledBackNotCommittedTwice() {
        List<JSONObject> heard = new ArrayList<>();
        LocalTransactions tx = new LocalTransactions(heard::add);
        tx.executeLocalTransaction(sent("k1"), new TransactionPlan(LocalTransactionState.COMMIT_MESSAGE, false));
        // A timed-out attempt left a half message on broker B; broker A acknowledged the retry.
        tx.stored("k1", BROKER_A);
        assertEquals(LocalTransactionState.ROLLBACK_MESSAGE, tx.checkLocalTransaction(check("k1", BROKER_B)));
        assertTrue(heard.get(0).getBooleanValue("stray"));
        assertEquals("rollback", heard.get(0).getString("answer"));
    }

    @Test
    void theSameAddressMatchesWhateverNameItWasReachedBy() throws Exception {
        LocalTransactions tx = new LocalTransactions(d -> { });
        tx.executeLocalTransaction(sent("k1"), new TransactionPlan(LocalTransactionState.COMMIT_MESSAGE, true));
        // The offset id and the check both carry raw address bytes; a host name plays no part.
        tx.stored("k1", new InetSocketAddress(java.net.InetAddress.getByAddress("broker-a-3", new byte[] {10, 0, 0, 7}), 10911));
        assertEquals(LocalTransactionState.COMMIT_MESSAGE,
            tx.checkLocalTransaction(check("k1", new InetSocketAddress(java.net.InetAddress.getByAddress(new byte[] {10, 0, 0, 7}), 10911))));
    }

    @Test
    void beforeTheAcknowledgementIsKnownOrWithoutAStoreHostTheDecisionStands() {
        LocalTransactions tx = new LocalTransactions(d -> { });
        tx.executeLocalTransaction(sent("k1"), new TransactionPlan(LocalTransactionState.ROLLBACK_MESSAGE, true));
        assertEquals(LocalTransactionState.ROLLBACK_MESSAGE, tx.checkLocalTransaction(check("k1", BROKER_B)));
        tx.stored("k1", BROKER_A);
        assertEquals(LocalTransactionState.ROLLBACK_MESSAGE, tx.checkLocalTransaction(check("k1", null)));
        // A key this producer never decided: the broker asks again later.
        assertEquals(LocalTransactionState.UNKNOW, tx.checkLocalTransaction(check("k9", BROKER_A)));
        // stored() for an unknown key records nothing.
        tx.stored("k9", BROKER_A);
        assertEquals(1, tx.size());
    }
}
