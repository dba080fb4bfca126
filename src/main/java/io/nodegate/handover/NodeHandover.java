package io.nodegate.handover;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.Optional;

/**
 * One hand-over as the cluster giving the nodes records it: a cluster-scoped {@code NodeHandover} in group
 * {@code nodegate.io}. The spec is what people recorded (the request, each step's "done" with who, when, the
 * message and its evidence, the close); the status is what nodegate read the last time it looked (checks,
 * violations of the procedure's don'ts, Alertmanager silences, history). docs/handover.md describes every field.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeHandover(String apiVersion, String kind, Meta metadata, HandoverSpec spec, HandoverStatus status) {

    public static final String GROUP = "nodegate.io";
    public static final String VERSION = "v1alpha1";
    public static final String API_VERSION = GROUP + "/" + VERSION;
    public static final String KIND = "NodeHandover";
    public static final String PLURAL = "nodehandovers";
    public static final String SINGULAR = "nodehandover";
    /** The collection's path on the API server (cluster-scoped). */
    public static final String PATH = "/apis/" + GROUP + "/" + VERSION + "/" + PLURAL;

    /** The metadata nodegate reads and writes; everything else the server keeps is left alone. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Meta(String name, String uid, String resourceVersion, Instant creationTimestamp) {
    }

    /** A new hand-over, before the API server has given it a uid and a resourceVersion. */
    public static NodeHandover create(String name, HandoverSpec spec) {
        return new NodeHandover(API_VERSION, KIND, new Meta(name, null, null, null), spec, null);
    }

    @JsonIgnore
    public String name() {
        return metadata.name();
    }

    @JsonIgnore
    public String uid() {
        return metadata.uid();
    }

    @JsonIgnore
    public String resourceVersion() {
        return metadata.resourceVersion();
    }

    @JsonIgnore
    public boolean closed() {
        return spec.closed() != null;
    }

    /** The highest step recorded, or -1 before step 0. Steps are recorded in order (the CRD enforces it). */
    @JsonIgnore
    public int lastStep() {
        return spec.steps().stream().mapToInt(StepRecord::step).max().orElse(-1);
    }

    @JsonIgnore
    public boolean recorded(int step) {
        return spec.steps().stream().anyMatch(s -> s.step() == step);
    }

    public Optional<StepRecord> step(int step) {
        return spec.steps().stream().filter(s -> s.step() == step).findFirst();
    }

    public NodeHandover withSpec(HandoverSpec newSpec) {
        return new NodeHandover(apiVersion, kind, metadata, newSpec, status);
    }

    public NodeHandover withStatus(HandoverStatus newStatus) {
        return new NodeHandover(apiVersion, kind, metadata, spec, newStatus);
    }
}
