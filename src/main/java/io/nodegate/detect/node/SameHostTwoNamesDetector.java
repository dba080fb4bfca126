package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.Taint;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * NG110: two Node objects with the same firmware systemUUID. A host that re-registers under a new name starts
 * as a bare Node: the cordon, role labels and taints stay on the old object (seed 000: gpu-a02 became new-01).
 */
public final class SameHostTwoNamesDetector implements Detector {

    private static final Comparator<NodeInfo> OLDEST_FIRST = Comparator
            .comparing(NodeInfo::created, Comparator.nullsLast(Comparator.<Instant>naturalOrder()))
            .thenComparing(NodeInfo::name);

    @Override
    public FindingCode code() {
        return FindingCode.NG110;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        Map<String, List<NodeInfo>> byUuid = new TreeMap<>();
        for (NodeInfo node : state.nodes()) {
            String uuid = node.systemInfo().systemUuid();
            if (NodeSystemInfo.isMeaningfulId(uuid)) {
                byUuid.computeIfAbsent(uuid.toLowerCase(java.util.Locale.ROOT), k -> new ArrayList<>()).add(node);
            }
        }
        List<Finding> findings = new ArrayList<>();
        byUuid.forEach((uuid, nodes) -> {
            if (nodes.size() >= 2) {
                findings.add(finding(uuid, nodes.stream().sorted(OLDEST_FIRST).toList()));
            }
        });
        return findings;
    }

    private Finding finding(String uuid, List<NodeInfo> nodes) {
        NodeInfo older = nodes.get(0);
        String olderMachineId = older.systemInfo().machineId();
        boolean machineIdsMatch = NodeSystemInfo.isMeaningfulId(olderMachineId) && nodes.stream()
                .allMatch(n -> olderMachineId.equals(n.systemInfo().machineId()));

        StringBuilder message = new StringBuilder();
        message.append(nodes.size()).append(" Nodes report systemUUID ").append(uuid);
        message.append(machineIdsMatch ? " and the same machineID: one host registered under several names. "
                : " but different machineIDs: a renamed host or a cloned VM. ");
        message.append("Older object: ").append(older.name())
                .append(older.created() == null ? "" : " (created " + older.created() + ")").append('.');

        Map<String, Object> lacks = new LinkedHashMap<>();
        for (NodeInfo newer : nodes.subList(1, nodes.size())) {
            List<String> missing = missingFrom(older, newer);
            lacks.put(newer.name(), missing);
            if (!missing.isEmpty()) {
                message.append(' ').append(newer.name()).append(" lacks ").append(String.join(", ", missing))
                        .append('.');
            }
        }
        Map<String, Object> machineIds = new LinkedHashMap<>();
        Map<String, Object> created = new LinkedHashMap<>();
        for (NodeInfo n : nodes) {
            machineIds.put(n.name(), n.systemInfo().machineId());
            created.put(n.name(), n.created() == null ? null : n.created().toString());
        }
        Evidence evidence = Evidence.of()
                .put("systemUUID", uuid)
                .put("machineIDs", machineIds)
                .put("machineIDsMatch", machineIdsMatch)
                .put("created", created)
                .put("olderNode", older.name())
                .put("newerLacks", lacks);
        return new Finding(code(), Severity.WARNING, nodes.stream().map(NodeInfo::name).toList(),
                message.toString(), evidence.build(),
                "Cordon the newer Node now if it should not take work (kubectl cordon <node>). Find out whether the "
                        + "older name's host was renamed before cleanup; keep or delete objects through the removal "
                        + "gate, not by name alone.").withDiscriminator(uuid);
    }

    /** What a human configured on the older object that the newer one does not have. */
    private static List<String> missingFrom(NodeInfo older, NodeInfo newer) {
        List<String> missing = new ArrayList<>();
        if (older.unschedulable() && !newer.unschedulable()) {
            missing.add("cordon");
        }
        for (String role : older.roles()) {
            if (!newer.roles().contains(role)) {
                missing.add("role label " + NodeInfo.ROLE_PREFIX + role);
            }
        }
        for (Taint taint : older.taints()) {
            if (taint.key() == null || taint.key().startsWith(NodeFacts.CONTROLLER_TAINT_PREFIX)) {
                continue;
            }
            boolean present = newer.taints().stream().anyMatch(t -> Objects.equals(t.key(), taint.key())
                    && Objects.equals(t.value(), taint.value()) && Objects.equals(t.effect(), taint.effect()));
            if (!present) {
                missing.add("taint " + taint);
            }
        }
        return missing;
    }
}
