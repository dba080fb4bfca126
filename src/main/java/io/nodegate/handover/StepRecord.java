package io.nodegate.handover;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One "step N done", as recorded: who said it, when, the message, what nodegate saw when it was recorded (named
 * values: a gate record's sha256, a removal time, a host report's verdict), and, when a person recorded it over a
 * check that did not pass, the reason they gave. The CRD keeps it as it was written: it cannot be changed or
 * removed.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record StepRecord(int step, String by, Instant at, String message, String override, List<Evidence> evidence) {

    public StepRecord {
        evidence = evidence == null ? List.of() : List.copyOf(evidence);
    }

    /** One named value the step was recorded with (a list of pairs, not a map, so the CRD can bound its size). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Evidence(String name, String value) {
    }

    public Optional<String> value(String name) {
        return evidence.stream().filter(e -> e.name().equals(name)).map(Evidence::value).findFirst();
    }

    /** Evidence names are "what/node" for a value about one node (e.g. "removedAt/gpu-a07"). */
    public static String perNode(String what, String node) {
        return what + "/" + node;
    }
}
