package io.nodegate.model;

import java.time.Instant;

/** A Job's identity and whether its Failed condition is True. */
public record JobInfo(String namespace, String name, String uid, Instant created, boolean failed,
                      String failedReason) {
}
