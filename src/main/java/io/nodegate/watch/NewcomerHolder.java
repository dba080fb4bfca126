package io.nodegate.watch;

import io.nodegate.lifecycle.inventory.NodeHolds;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.NodeInfo;

import java.time.Clock;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The watch holding newcomers at birth (docs/inventory.md): after each pass (the pass that follows the Node's ADDED
 * event, debounced), a Node that was not there in the first pass this replica made, carries no hold and was never
 * accepted, and that {@link NewcomerHold#reasons} holds, gets the taint {@value NewcomerHold#TAINT_KEY}. Only the
 * leader writes. Nodes that were there when the watch started are never tainted by it: turning the watch on does
 * not hold a running cluster.
 *
 * <p>The race, stated: between the Node's creation and the taint there is one watch event, the debounce and one
 * PATCH. The scheduler may bind a pod to the Node in between (NoSchedule does not evict it); the NoExecute effect
 * (`watch --hold-effect NoExecute`) evicts what landed, for hosts that must not run anything. The admission policy
 * closes the window where the API server serves MutatingAdmissionPolicy.
 */
public final class NewcomerHolder {

    private final NodeHolds holds;
    private final BooleanSupplier leads;
    private final String effect;
    private final Clock clock;
    private final Consumer<String> log;
    /** Node uids seen so far: those of the first pass are the running cluster, never held by the watch. */
    private Set<String> seen;
    /** Newcomers whose hold failed (the Node changed under the PATCH, a call failed): tried again next pass. */
    private final Map<String, String> retry = new LinkedHashMap<>();

    public NewcomerHolder(NodeHolds holds, BooleanSupplier leads, String effect, Clock clock, Consumer<String> log) {
        this.holds = holds;
        this.leads = leads;
        this.effect = effect;
        this.clock = clock;
        this.log = log;
    }

    /** Looks at a good pass's snapshot; returns the Nodes it held. */
    public synchronized List<String> afterPass(ClusterState state) {
        if (seen == null) {
            seen = new HashSet<>();
            state.nodes().forEach(n -> seen.add(n.uid()));
            return List.of();
        }
        List<String> held = new java.util.ArrayList<>();
        for (NodeInfo n : state.nodes()) {
            boolean isNew = seen.add(n.uid());
            if (!isNew && !retry.containsKey(n.uid())) {
                continue;
            }
            if (NewcomerHold.held(n) || NewcomerHold.accepted(n)) {
                retry.remove(n.uid());
                continue;
            }
            List<String> reasons = NewcomerHold.reasons(n, state);
            if (reasons.isEmpty()) {
                retry.remove(n.uid());
                continue;
            }
            if (!leads.getAsBoolean()) {
                retry.put(n.uid(), n.name()); // the leader holds it; should this replica lead next, it will
                continue;
            }
            try {
                holds.hold(n, effect, clock.instant());
                retry.remove(n.uid());
                held.add(n.name());
                log.accept("held newcomer Node " + n.name() + " (taint " + NewcomerHold.TAINT_KEY + ":" + effect
                        + "): " + String.join("; ", reasons) + ". 'nodegate accept " + n.name() + "' lifts it");
            } catch (RuntimeException e) {
                retry.put(n.uid(), n.name());
                log.accept("holding newcomer Node " + n.name() + " failed, tried again next pass: " + e.getMessage());
            }
        }
        retry.keySet().retainAll(state.nodes().stream().map(NodeInfo::uid).toList());
        return held;
    }
}
