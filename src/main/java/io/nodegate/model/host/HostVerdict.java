package io.nodegate.model.host;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** What a host report says about the host as a member of a cluster. */
public enum HostVerdict {
    /** No agent config, no agent installed or running, nothing left behind: it cannot rejoin on its own. */
    CLEAN("clean"),
    /** The agent is stopped, but its config (or its leftovers) remain: a start or a reboot can bring it back. */
    STOPPED("stopped"),
    /** The agent's config names a server that is not the cluster the report is checked against. */
    POINTS_ELSEWHERE("points-elsewhere"),
    /** An agent (or kubelet) is running. */
    RUNNING("running"),
    /**
     * The report cannot tell: nothing points elsewhere or runs as far as it saw, but it did not see everything
     * (services not read: `--root` without `--systemctl`). Never read as stopped, let alone clean.
     */
    INCOMPLETE("incomplete");

    private final String text;

    HostVerdict(String text) {
        this.text = text;
    }

    @JsonValue
    public String text() {
        return text;
    }

    @JsonCreator
    public static HostVerdict of(String text) {
        for (HostVerdict v : values()) {
            if (v.text.equals(text)) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown host verdict '" + text + "' (clean, stopped, points-elsewhere, "
                + "running, incomplete)");
    }
}
