package io.drstudio.rocketmq.dr;

import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.logging.org.slf4j.Logger;
import org.apache.rocketmq.logging.org.slf4j.LoggerFactory;
import org.apache.rocketmq.remoting.RemotingClient;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.apache.rocketmq.remoting.netty.NettyRemotingAbstract;
import org.apache.rocketmq.remoting.netty.ResponseFuture;

/**
 * Fails the requests still waiting on a broker proven dead. The stock 5.3.3 remoting client fails a
 * channel's pending requests when it closes the channel itself, not when the broker closes it (a
 * killed broker), so a request in flight waits out its whole timeout although its broker is gone.
 * Once another attempt proved the broker down (its connection refused), this does what the stock
 * client does on its own close: each waiting request fails at once and its send moves on.
 *
 * <p>The table of pending requests is a protected field of the client's remoting layer, read by
 * reflection; when it cannot be read (another client version) this does nothing, and requests
 * wait out their timeout as in the stock client.
 */
final class PendingRequests {
    private static final Logger LOG = LoggerFactory.getLogger(PendingRequests.class);
    private static final Field RESPONSE_TABLE = responseTableField();

    private PendingRequests() {
    }

    /** Fails every request waiting on {@code brokerAddr} ({@code host:port}); returns how many. */
    static int failAll(MQClientInstance instance, String brokerAddr) {
        if (RESPONSE_TABLE == null || instance == null || brokerAddr == null) return 0;
        Map<Integer, ResponseFuture> table = tableOf(instance.getMQClientAPIImpl().getRemotingClient());
        if (table == null) return 0;
        int failed = 0;
        for (Map.Entry<Integer, ResponseFuture> e : table.entrySet()) {
            ResponseFuture f = e.getValue();
            if (f.getChannel() == null || !sameAddress(f.getChannel().remoteAddress(), brokerAddr)) continue;
            if (!table.remove(e.getKey(), f)) continue; // answered or timed out meanwhile
            try {
                if (f.getInvokeCallback() != null) {
                    f.getInvokeCallback().operationFail(new RemotingSendRequestException(brokerAddr,
                        new IllegalStateException("broker " + brokerAddr + " is down (connection refused)")));
                }
                failed++;
            } finally {
                f.release();
            }
        }
        if (failed > 0) LOG.info("failed {} request(s) waiting on {}, which refuses connections", failed, brokerAddr);
        return failed;
    }

    /** {@code /10.1.0.5:10911} or a resolved name against {@code 10.1.0.5:10911}. */
    static boolean sameAddress(SocketAddress remote, String hostPort) {
        if (!(remote instanceof InetSocketAddress a)) return false;
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) return false;
        String host = hostPort.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            return false;
        }
        if (a.getPort() != port) return false;
        String ip = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return host.equals(ip) || host.equals(a.getHostString());
    }

    @SuppressWarnings("unchecked")
    private static Map<Integer, ResponseFuture> tableOf(RemotingClient client) {
        if (!(client instanceof NettyRemotingAbstract)) return null;
        try {
            return (Map<Integer, ResponseFuture>) RESPONSE_TABLE.get(client);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Field responseTableField() {
        try {
            Field f = NettyRemotingAbstract.class.getDeclaredField("responseTable");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("cannot read the remoting client's pending requests ({}); a killed broker's requests in flight "
                + "wait out their timeout", e.toString());
            return null;
        }
    }
}
