package io.drstudio.rocketmq.dr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class NameServerSelectionTest {
    private static NameServerEntry ns(String id, String room, boolean available) {
        return new NameServerEntry(id, room, id + ":9876", available);
    }

    @Test
    void ownRoomsAvailableNameServersOnlyWhileThereAreAny() {
        NameServerSelection s = NameServerSelection.choose("room1",
            List.of(ns("a", "room1", true), ns("b", "room2", true), ns("c", "room1", false), ns("d", "room1", true)));
        assertEquals(List.of("a:9876", "d:9876"), s.addresses());
        assertEquals(NameServerSelection.Reason.SAME_ROOM, s.reason());
        assertEquals("a:9876;d:9876", s.joined());
    }

    @Test
    void otherRoomsWhenTheOwnRoomHasNoneAvailable() {
        NameServerSelection s = NameServerSelection.choose("room1",
            List.of(ns("a", "room1", false), ns("b", "room2", true), ns("c", "room3", true), ns("d", "room3", false)));
        assertEquals(List.of("b:9876", "c:9876"), s.addresses());
        assertEquals(NameServerSelection.Reason.OTHER_ROOM, s.reason());
    }

    @Test
    void nothingWhenNoNameServerIsAvailableAnywhere() {
        assertNull(NameServerSelection.choose("room1", List.of(ns("a", "room1", false), ns("b", "room2", false))));
        assertNull(NameServerSelection.choose("room1", List.of()));
    }

    @Test
    void entriesWithoutAnAddressAreSkipped() {
        NameServerSelection s = NameServerSelection.choose("room1",
            List.of(new NameServerEntry("x", "room1", " ", true), ns("b", "room2", true)));
        assertEquals(List.of("b:9876"), s.addresses());
    }
}
