package io.drstudio.javaworker;

import org.apache.rocketmq.client.producer.LocalTransactionState;

/**
 * What the local transaction of one transactional send decides, and whether the producer tells the
 * broker at once or leaves it to ask (a check-back). Drawn from the message key by the same hash as
 * the engine's, so the ledger can tell which messages must be delivered without being told.
 */
record TransactionPlan(LocalTransactionState decision, boolean viaCheck) {
    /** A producer's shares (each 0..1) of committed messages and of decisions left to a check-back. */
    record Shares(double commit, double check) {
        TransactionPlan plan(String key) {
            return of(key, commit, check);
        }
    }

    static TransactionPlan of(String key, double commitShare, double checkShare) {
        return new TransactionPlan(
            unitHash(key + "#commit") < commitShare ? LocalTransactionState.COMMIT_MESSAGE : LocalTransactionState.ROLLBACK_MESSAGE,
            unitHash(key + "#check") < checkShare);
    }

    /** FNV-1a 32-bit over the UTF-16 chars, scaled to [0, 1): the engine's unitHash, bit for bit. */
    static double unitHash(String s) {
        int h = 0x811c9dc5;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x01000193;
        }
        return (h & 0xffffffffL) / 4294967296.0;
    }

    /** "commit" or "rollback", as the ledger writes the decision. */
    String decisionName() {
        return name(decision);
    }

    /** The ledger's name of a local-transaction state. */
    static String name(LocalTransactionState s) {
        return switch (s) {
            case COMMIT_MESSAGE -> "commit";
            case ROLLBACK_MESSAGE -> "rollback";
            case UNKNOW -> "unknown";
        };
    }
}
