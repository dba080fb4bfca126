package io.nodegate.model;

import java.time.Instant;
import java.util.List;

public record CsiNodeInfo(String name, String uid, Instant created, List<String> drivers) {
    public CsiNodeInfo {
        drivers = drivers == null ? List.of() : List.copyOf(drivers);
    }
}
