package io.nodegate.handover;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What people recorded: the request (step 0, written by {@code handover open}), the identity of each target host as
 * the giving cluster saw it at open, each step's "done", and the close. The CRD keeps a recorded step from being
 * changed or removed and steps from being recorded out of order; {@code nodes}, {@code type},
 * {@code destination.cluster} and {@code targets} cannot change after open.
 *
 * @param nodes         the target Node names in the giving cluster
 * @param type          move, return or decommission
 * @param destination   the receiving cluster (null for a decommission)
 * @param due           the agreed date (YYYY-MM-DD)
 * @param requester     who asked for the hand-over
 * @param ticket        the one thread or ticket where every "step N done" goes
 * @param alertmanagers Alertmanager replicas (base URLs) where the hand-over's silence is kept
 * @param silence       extra matchers and the silence's length
 * @param targets       each target's identity at open (uid, systemUUID, machineID, IPs, bootID, roles, taints, GPUs)
 * @param steps         the recorded steps, in order
 * @param closed        who closed the hand-over and when (null while open)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record HandoverSpec(List<String> nodes, HandoverType type, Destination destination, String due,
                           String requester, String ticket, List<String> alertmanagers, SilenceSpec silence,
                           List<Target> targets, List<StepRecord> steps, Closure closed) {

    /** Bounds the CRD also states: a spec over them is refused by the API server. */
    public static final int MAX_NODES = 100;
    public static final int MAX_MATCHERS = 16;

    public HandoverSpec {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        alertmanagers = alertmanagers == null ? List.of() : List.copyOf(alertmanagers);
        targets = targets == null ? List.of() : List.copyOf(targets);
        steps = steps == null ? List.of() : List.copyOf(steps);
    }

    /** The receiving cluster: its name as people say it, and the kubeconfig context the operator reaches it by. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Destination(String cluster, String context) {
    }

    /**
     * @param matchers extra Alertmanager matchers ANDed with the node matcher (e.g. {@code cluster="cluster-a"})
     * @param duration how far ahead the silence ends; it is extended while the hand-over is open (e.g. 4h)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SilenceSpec(List<String> matchers, String duration) {
        public SilenceSpec {
            matchers = matchers == null ? List.of() : List.copyOf(matchers);
        }
    }

    /**
     * One target as the giving cluster showed it at open: what later reads are compared with (a new name or
     * address, a reboot, the host in another cluster) and what the receiving cluster must show at step 5.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Target(String node, String uid, @JsonProperty("systemUUID") String systemUuid,
                         @JsonProperty("machineID") String machineId,
                         @JsonProperty("internalIPs") List<String> internalIps,
                         @JsonProperty("bootID") String bootId, List<String> roles, List<String> taints, Long gpus,
                         String kubeletVersion, Boolean server) {
        public Target {
            internalIps = internalIps == null ? List.of() : List.copyOf(internalIps);
            roles = roles == null ? List.of() : List.copyOf(roles);
            taints = taints == null ? List.of() : List.copyOf(taints);
        }

        @JsonIgnore
        public boolean isServer() {
            return Boolean.TRUE.equals(server);
        }
    }

    /** Who closed the hand-over, when, and why (a cancelled hand-over is closed too). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Closure(String by, Instant at, String reason) {
    }

    public Optional<Target> target(String node) {
        return targets.stream().filter(t -> t.node().equals(node)).findFirst();
    }

    public HandoverSpec withStep(StepRecord step) {
        List<StepRecord> more = new ArrayList<>(steps);
        more.add(step);
        return new HandoverSpec(nodes, type, destination, due, requester, ticket, alertmanagers, silence, targets,
                more, closed);
    }

    /** The same spec naming these Alertmanager replicas (step 1 may name them when open did not). */
    public HandoverSpec withAlertmanagers(List<String> replicas) {
        return new HandoverSpec(nodes, type, destination, due, requester, ticket, replicas, silence, targets, steps,
                closed);
    }

    public HandoverSpec withClosed(Closure closure) {
        return new HandoverSpec(nodes, type, destination, due, requester, ticket, alertmanagers, silence, targets,
                steps, closure);
    }
}
