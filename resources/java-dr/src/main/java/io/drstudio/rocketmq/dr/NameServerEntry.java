package io.drstudio.rocketmq.dr;

/**
 * One name server as a management node reports it.
 *
 * @param id        its name in the topology (may be the address when unnamed)
 * @param room      the machine room it runs in
 * @param address   {@code host:port}
 * @param available the management node's last probe reached it
 */
public record NameServerEntry(String id, String room, String address, boolean available) {
}
