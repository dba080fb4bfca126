package io.nodegate.model.alertmanager;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;
import java.util.Map;

/**
 * A notification group as GET /api/v2/alerts/groups returns it (prometheus/alertmanager api/v2/openapi.yaml,
 * definitions {@code alertGroup}: labels, receiver, alerts). The labels are the values of the route's group_by.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AmGroup(Map<String, String> labels, Receiver receiver, List<AmAlert> alerts) {

    public AmGroup {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        alerts = alerts == null ? List.of() : List.copyOf(alerts);
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Receiver(String name) {
    }

    public String receiverName() {
        return receiver == null ? null : receiver.name();
    }
}
