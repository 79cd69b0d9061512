package io.drstudio.rocketmq.dr;

import java.util.Objects;

/**
 * A room's management node: the HTTP service that probes every room's name servers and answers
 * `GET /v1/nameservers` with each one's room and availability (and `/rocketmq/nsaddr` for the stock
 * address-server protocol).
 *
 * @param room the machine room the node serves
 * @param url  its base URL, e.g. {@code http://10.1.0.9:8080}
 */
public record ManagementNode(String room, String url) {
    public ManagementNode {
        Objects.requireNonNull(room, "room");
        Objects.requireNonNull(url, "url");
        if (!url.startsWith("http://") && !url.startsWith("https://")) {
            throw new IllegalArgumentException("management node URL " + url + " of room " + room
                + " must start with http:// or https://");
        }
    }
}
