package io.nodegate.handover;

import io.nodegate.model.HostIdentity;
import io.nodegate.model.Gpu;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.Taint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.nodegate.handover.GateDeleteChecks.verifyGone;
import static io.nodegate.handover.HandoverChecks.ADMITTED;
import static io.nodegate.handover.HandoverChecks.EXPECT_ROLE;
import static io.nodegate.handover.HandoverChecks.EXPECT_TAINT;
import static io.nodegate.handover.HandoverChecks.NEW_NAME;
import static io.nodegate.handover.HandoverChecks.invalid;

/**
 * The checks of step 5, admitted: each host Ready in the destination with the expected version, role, taints and
 * GPUs ({@link HandoverChecks} composes the steps).
 */
final class AdmittedChecks implements StepChecks {

    @Override
    public Step step() {
        return Step.ADMITTED;
    }

    @Override
    public List<StepCheck> check(NodeHandover h, StepRecord claim, HandoverReading r) {
        return admitted(h, claim, r);
    }

    private static List<StepCheck> admitted(NodeHandover h, StepRecord claim, HandoverReading r) {
        List<StepCheck> out = new ArrayList<>();
        String title = "Ready in the destination with the expected version, role, taints and GPUs";
        if (!h.spec().type().hasDestination()) {
            out.add(new StepCheck(5, null, new Check(ADMITTED, title, Verdict.NOT_CHECKED,
                    List.of("a decommission has no receiving cluster"), Map.of())));
            return out;
        }
        HandoverReading.Other dest = r.others().stream().filter(HandoverReading.Other::destination).findFirst()
                .orElse(null);
        Instant arrived = null;
        for (String node : h.spec().nodes()) {
            HandoverSpec.Target target = h.spec().target(node).orElse(null);
            Check c = admittedOne(h, node, target, claim, dest);
            out.add(new StepCheck(5, node, c));
            if (dest != null && dest.error() == null && target != null) {
                for (NodeInfo n : HostIdentity.appearances(target.systemUuid(), target.machineId(), dest.nodes())) {
                    if (n.created() != null && (arrived == null || n.created().isAfter(arrived))) {
                        arrived = n.created();
                    }
                }
            }
        }
        String vgTitle = "verify-gone PASS again after the hosts were admitted";
        if (arrived == null && r.evidence() != null) {
            out.add(new StepCheck(5, null, new Check("verifyGoneAgain", vgTitle, Verdict.HOLD,
                    List.of("the hosts are not seen in the destination yet: the second verify-gone comes after"),
                    Map.of())));
        } else {
            out.add(new StepCheck(5, null, verifyGone(h, claim, r.evidence(), arrived, "verifyGoneAgain", vgTitle)));
        }
        return out;
    }

    private static Check admittedOne(NodeHandover h, String node, HandoverSpec.Target target, StepRecord claim,
                                     HandoverReading.Other dest) {
        String title = "Ready in the destination";
        String cluster = h.spec().destination() == null ? "?" : h.spec().destination().cluster();
        if (dest == null) {
            Optional<String> recorded = claim == null ? Optional.empty()
                    : claim.value(StepRecord.perNode(ADMITTED, node));
            if (recorded.isPresent()) {
                return new Check(ADMITTED, title, Verdict.PASS, List.of(), Map.of("recorded", recorded.get()));
            }
            return new Check(ADMITTED, title, Verdict.NOT_CHECKED, List.of("the destination " + cluster + " was not "
                    + "read (--to-context, or the context recorded at open)"), Map.of());
        }
        if (dest.error() != null) {
            return invalid(ADMITTED, title, "cluster " + dest.name() + ": " + dest.error());
        }
        if (target == null) {
            return new Check(ADMITTED, title, Verdict.HOLD, List.of("no identity recorded for " + node), Map.of());
        }
        List<NodeInfo> seen = HostIdentity.appearances(target.systemUuid(), target.machineId(), dest.nodes());
        if (seen.isEmpty()) {
            return new Check(ADMITTED, title, Verdict.HOLD, List.of(node + "'s host (systemUUID "
                    + target.systemUuid() + ", machineID " + target.machineId() + ") is not a Node of " + dest.name()
                    + " yet"), Map.of());
        }
        NodeInfo n = seen.stream().max(Comparator.comparing(NodeInfo::created,
                Comparator.nullsFirst(Comparator.naturalOrder()))).orElseThrow();
        Map<String, String> e = new LinkedHashMap<>();
        e.put("node", n.name() + " in " + dest.name() + " (same "
                + HostIdentity.match(target.systemUuid(), target.machineId(), n) + ")");
        e.put("created", String.valueOf(n.created()));
        e.put("ready", String.valueOf(n.readyStatus()));
        e.put("kubeletVersion", String.valueOf(n.systemInfo().kubeletVersion()));
        e.put("roles", n.roles().toString());
        List<String> fails = new ArrayList<>();
        List<String> holds = new ArrayList<>();
        if (!n.isReady()) {
            holds.add(n.name() + " is not Ready in " + dest.name() + " (Ready=" + n.readyStatus() + ")");
        }
        String version = clusterVersion(dest.nodes());
        if (version == null) {
            e.put("expectedVersion", "not known (no server Node of " + dest.name() + " visible)");
        } else {
            e.put("expectedVersion", version);
            if (!version.equals(n.systemInfo().kubeletVersion())) {
                fails.add(n.name() + " runs kubelet " + n.systemInfo().kubeletVersion() + ", not " + dest.name()
                        + "'s " + version + ": reinstall at the cluster's version");
            }
        }
        List<String> roles = expected(claim, EXPECT_ROLE, target.roles());
        TreeSet<String> missingRoles = new TreeSet<>(roles);
        missingRoles.removeAll(n.roles());
        if (!missingRoles.isEmpty()) {
            fails.add(n.name() + " lacks role label(s) " + missingRoles.stream().map(x -> "node-role.kubernetes.io/"
                    + x).toList());
        }
        List<String> taints = expected(claim, EXPECT_TAINT, target.taints().stream()
                .filter(t -> !t.startsWith("node.kubernetes.io/")).toList());
        List<String> have = n.taints().stream().map(AdmittedChecks::taintKeyEffect).toList();
        List<String> missingTaints = taints.stream().map(AdmittedChecks::keyEffectOf)
                .filter(t -> have.stream().noneMatch(x -> x.equals(t) || (!t.contains(":") && x.startsWith(t + ":"))))
                .toList();
        if (!missingTaints.isEmpty()) {
            fails.add(n.name() + " lacks taint(s) " + missingTaints);
        }
        e.put("taints", have.toString());
        long gpus = gpus(n);
        e.put("gpus", Long.toString(gpus));
        if (target.gpus() != null && target.gpus() != gpus) {
            fails.add(n.name() + " reports " + gpus + " GPU(s), " + node + " had " + target.gpus()
                    + ": not the same hardware, or a driver/device plugin missing");
        }
        if (claim != null) {
            claim.value(StepRecord.perNode(NEW_NAME, node)).filter(x -> !x.equals(n.name()))
                    .ifPresent(x -> holds.add("registered as " + n.name() + ", infra's reply said " + x));
        }
        List<String> reasons = new ArrayList<>(fails);
        reasons.addAll(holds);
        return new Check(ADMITTED, title, !fails.isEmpty() ? Verdict.FAIL : !holds.isEmpty() ? Verdict.HOLD
                : Verdict.PASS, reasons, e);
    }

    private static List<String> expected(StepRecord claim, String name, List<String> fallback) {
        if (claim != null) {
            List<String> given = claim.evidence().stream().filter(x -> x.name().equals(name))
                    .flatMap(x -> java.util.Arrays.stream(x.value().split(","))).map(String::trim)
                    .filter(x -> !x.isEmpty()).toList();
            if (!given.isEmpty()) {
                return given;
            }
        }
        return fallback;
    }

    /** "key:effect" of a taint, as the comparison uses it (values may differ between clusters). */
    static String taintKeyEffect(Taint t) {
        return t.key() + ":" + t.effect();
    }

    /** "key=value:effect" or "key:effect" or "key" → "key:effect" or "key". */
    private static String keyEffectOf(String taint) {
        int colon = taint.lastIndexOf(':');
        String effect = colon > 0 ? taint.substring(colon + 1) : null;
        String keyValue = colon > 0 ? taint.substring(0, colon) : taint;
        int eq = keyValue.indexOf('=');
        String key = eq > 0 ? keyValue.substring(0, eq) : keyValue;
        return effect == null ? key : key + ":" + effect;
    }

    /** The servers' kubelet version (the most common among server Nodes), or null without a visible server. */
    static String clusterVersion(List<NodeInfo> nodes) {
        Map<String, Long> counts = nodes.stream().filter(NodeInfo::isServer)
                .map(n -> n.systemInfo().kubeletVersion()).filter(Objects::nonNull)
                .collect(Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    static long gpus(NodeInfo n) {
        try {
            return Gpu.capacity(n).values().stream().mapToLong(Long::longValue).sum();
        } catch (RuntimeException unparsable) {
            return -1;
        }
    }
}
