package io.drstudio.rocketmq.dr;

import java.util.ArrayList;
import java.util.List;

/**
 * Which name servers a client may use (claims 2 and 4): the available ones of its own room while
 * there are any, else the available ones of the other rooms. The stock client starts at a random
 * index of its list and sticks to a live one, so a list holding only the own room's name servers
 * is what keeps it in its room.
 *
 * @param addresses {@code host:port} list in the management node's order
 * @param reason    {@link Reason#SAME_ROOM} or {@link Reason#OTHER_ROOM}
 */
public record NameServerSelection(List<String> addresses, Reason reason) {
    public enum Reason {
        SAME_ROOM("same-room"),
        OTHER_ROOM("other-room");

        public final String wire;

        Reason(String wire) {
            this.wire = wire;
        }
    }

    public NameServerSelection {
        addresses = List.copyOf(addresses);
    }

    /** The selection for a client of {@code room}; null when no name server is available at all. */
    public static NameServerSelection choose(String room, List<NameServerEntry> entries) {
        List<String> own = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (NameServerEntry e : entries) {
            if (!e.available() || e.address() == null || e.address().isBlank()) continue;
            (room.equals(e.room()) ? own : others).add(e.address());
        }
        if (!own.isEmpty()) return new NameServerSelection(own, Reason.SAME_ROOM);
        if (!others.isEmpty()) return new NameServerSelection(others, Reason.OTHER_ROOM);
        return null;
    }

    /** The list as {@code ClientConfig.setNamesrvAddr} takes it. */
    public String joined() {
        return String.join(";", addresses);
    }
}
