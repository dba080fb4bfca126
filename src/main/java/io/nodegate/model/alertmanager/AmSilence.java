package io.nodegate.model.alertmanager;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A silence as GET /api/v2/silences returns it (prometheus/alertmanager api/v2/openapi.yaml, definitions
 * {@code gettableSilence}: id, status.state expired|active|pending, updatedAt, matchers, startsAt, endsAt, createdBy,
 * comment).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AmSilence(String id, Status status, Instant updatedAt, List<AmMatcher> matchers, Instant startsAt,
                        Instant endsAt, String createdBy, String comment) {

    public static final String ACTIVE = "active";
    public static final String PENDING = "pending";
    public static final String EXPIRED = "expired";

    public AmSilence {
        matchers = matchers == null ? List.of() : List.copyOf(matchers);
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Status(String state) {
    }

    public String state() {
        return status == null ? null : status.state();
    }

    /** Whether the silence's matchers all match these labels. */
    public boolean matches(Map<String, String> labels) {
        return !matchers.isEmpty() && matchers.stream().allMatch(m -> m.matches(labels));
    }

    /**
     * Expired by someone rather than by time: Alertmanager sets endsAt to the moment of an expiry (DELETE
     * /api/v2/silence/{id}) and updatedAt with it, so an expired silence whose end is its last update was ended by
     * hand; one that simply ran out ended long after its last update.
     */
    public boolean expiredByHand() {
        return EXPIRED.equals(state()) && endsAt != null && updatedAt != null
                && !endsAt.isAfter(updatedAt.plusSeconds(1));
    }
}
