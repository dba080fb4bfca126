package io.nodegate.handover;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;

/**
 * Why the nodes leave (seed 000's proposal): moved to another team's cluster, returned to the cluster or owner they
 * were borrowed from, or decommissioned (no receiving cluster: steps 4 and 5 do not apply).
 */
public enum HandoverType {
    MOVE("move"), RETURN("return"), DECOMMISSION("decommission");

    private final String text;

    HandoverType(String text) {
        this.text = text;
    }

    @JsonValue
    public String text() {
        return text;
    }

    /** Whether a receiving cluster admits the hosts (steps 4 and 5). */
    public boolean hasDestination() {
        return this != DECOMMISSION;
    }

    @JsonCreator
    public static HandoverType of(String text) {
        for (HandoverType t : values()) {
            if (t.text.equals(text == null ? null : text.toLowerCase(Locale.ROOT))) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown hand-over type '" + text + "' (one of "
                + String.join(", ", Arrays.stream(values()).map(HandoverType::text).toList()) + ")");
    }
}
