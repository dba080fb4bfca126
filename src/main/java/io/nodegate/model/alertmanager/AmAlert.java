package io.nodegate.model.alertmanager;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * An alert as GET /api/v2/alerts (and each group of /api/v2/alerts/groups) returns it (prometheus/alertmanager
 * api/v2/openapi.yaml, definitions {@code gettableAlert}: labels, annotations, receivers, fingerprint, startsAt,
 * updatedAt, endsAt, status with state unprocessed|active|suppressed, silencedBy, inhibitedBy).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AmAlert(Map<String, String> labels, String fingerprint, Instant startsAt, Instant endsAt,
                      Status status) {

    public static final String ACTIVE = "active";
    public static final String SUPPRESSED = "suppressed";
    public static final String UNPROCESSED = "unprocessed";

    public AmAlert {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Status(String state, List<String> silencedBy, List<String> inhibitedBy) {
        public Status {
            silencedBy = silencedBy == null ? List.of() : List.copyOf(silencedBy);
            inhibitedBy = inhibitedBy == null ? List.of() : List.copyOf(inhibitedBy);
        }
    }

    public String state() {
        return status == null ? null : status.state();
    }

    public List<String> silencedBy() {
        return status == null ? List.of() : status.silencedBy();
    }
}
