package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class PendingRequestsTest {
    @Test
    void matchesAChannelsRemoteAddressWithTheBrokersHostAndPort() {
        InetSocketAddress remote = new InetSocketAddress("127.0.0.1", 10911);
        assertTrue(PendingRequests.sameAddress(remote, "127.0.0.1:10911"));
        assertFalse(PendingRequests.sameAddress(remote, "127.0.0.1:10912"));
        assertFalse(PendingRequests.sameAddress(remote, "127.0.0.2:10911"));
        assertFalse(PendingRequests.sameAddress(remote, "nonsense"));
        assertFalse(PendingRequests.sameAddress(null, "127.0.0.1:10911"));
    }

    @Test
    void doesNothingWithoutAClient() {
        assertTrue(PendingRequests.failAll(null, "127.0.0.1:10911") == 0);
    }
}
