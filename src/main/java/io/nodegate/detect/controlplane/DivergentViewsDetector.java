package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.NodeInfo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * NG207 divergent-views: API servers of one cluster disagree about its Nodes. In one etcd cluster every
 * apiserver reads the same data, so a difference in node set or uid means the servers are backed by different
 * etcd clusters (seed 001: a server restarted without --server formed its own one-member cluster and sees
 * only itself, while the original cluster shows it NotReady). Ready and version differences alone are
 * warnings: they can also be a read that raced a heartbeat, or an upgrade in progress.
 */
public final class DivergentViewsDetector implements MultiViewDetector {

    public static final FindingCode CODE = FindingCode.NG207;

    @Override
    public FindingCode code() {
        return CODE;
    }

    @Override
    public List<Finding> detect(List<NamedView> views, AuditSettings settings) {
        if (views.size() < 2) {
            return List.of();
        }
        Map<String, Map<String, NodeInfo>> byView = new LinkedHashMap<>();
        Set<String> allNodes = new TreeSet<>();
        for (NamedView v : views) {
            Map<String, NodeInfo> nodes = new TreeMap<>(v.state().nodesByName());
            byView.put(v.name(), nodes);
            allNodes.addAll(nodes.keySet());
        }

        List<String> sentences = new ArrayList<>();
        Set<String> affected = new TreeSet<>();
        Map<String, Object> evidence = new LinkedHashMap<>();
        boolean critical = false;

        Map<String, List<String>> nodeSets = new LinkedHashMap<>();
        byView.forEach((view, nodes) -> nodeSets.put(view, List.copyOf(nodes.keySet())));
        boolean setsDiffer = nodeSets.values().stream().distinct().count() > 1;
        if (setsDiffer) {
            critical = true;
            evidence.put("nodeSets", nodeSets);
            Map<String, List<String>> missing = new LinkedHashMap<>();
            for (var e : byView.entrySet()) {
                List<String> notSeen = allNodes.stream().filter(n -> !e.getValue().containsKey(n)).toList();
                if (!notSeen.isEmpty()) {
                    missing.put(e.getKey(), notSeen);
                    affected.addAll(notSeen);
                }
            }
            evidence.put("missingFromView", missing);
            sentences.add(describeNodeSets(byView));
        }

        List<Map<String, Object>> uidMismatches = new ArrayList<>();
        List<Map<String, Object>> creationMismatches = new ArrayList<>();
        List<Map<String, Object>> readyMismatches = new ArrayList<>();
        List<Map<String, Object>> roleMismatches = new ArrayList<>();
        for (String node : allNodes) {
            Map<String, String> uids = new LinkedHashMap<>();
            Map<String, Instant> created = new LinkedHashMap<>();
            Map<String, String> ready = new LinkedHashMap<>();
            Map<String, String> roles = new LinkedHashMap<>();
            byView.forEach((view, nodes) -> {
                NodeInfo n = nodes.get(node);
                if (n != null) {
                    roles.put(view, n.roles().isEmpty() ? "<none>" : String.join(",", n.roles()));
                    uids.put(view, n.uid());
                    created.put(view, n.created());
                    ready.put(view, n.readyStatus() == null ? "none" : n.readyStatus());
                }
            });
            if (uids.size() < 2) {
                continue;
            }
            boolean uidDiffers = new LinkedHashSet<>(uids.values()).size() > 1;
            if (uidDiffers) {
                critical = true;
                affected.add(node);
                uidMismatches.add(Map.of("node", node, "uids", uids, "created", asText(created)));
                sentences.add("Node " + node + " is a different object in each view: uid " + describe(uids)
                        + ", created " + describe(asText(created)) + ".");
            } else if (new LinkedHashSet<>(created.values()).size() > 1) {
                affected.add(node);
                creationMismatches.add(Map.of("node", node, "created", asText(created)));
                sentences.add("Node " + node + " has the same uid but a different creation time: "
                        + describe(asText(created)) + ".");
            }
            boolean readySomewhere = ready.containsValue("True");
            boolean notReadySomewhere = ready.values().stream().anyMatch(s -> !"True".equals(s));
            if (readySomewhere && notReadySomewhere) {
                affected.add(node);
                readyMismatches.add(Map.of("node", node, "ready", ready));
                sentences.add("Node " + node + " is Ready in " + viewsWith(ready, true) + " but not in "
                        + viewsWith(ready, false) + " (Ready " + describe(ready) + ").");
            }
            if (new LinkedHashSet<>(roles.values()).size() > 1) {
                affected.add(node);
                roleMismatches.add(Map.of("node", node, "roles", roles));
                sentences.add("Node " + node + " has different roles: " + describe(roles) + ".");
            }
        }
        if (!uidMismatches.isEmpty()) {
            evidence.put("uidMismatches", uidMismatches);
        }
        if (!creationMismatches.isEmpty()) {
            evidence.put("creationMismatches", creationMismatches);
        }
        if (!readyMismatches.isEmpty()) {
            evidence.put("readyMismatches", readyMismatches);
        }
        if (!roleMismatches.isEmpty()) {
            evidence.put("roleMismatches", roleMismatches);
        }

        Map<String, String> versions = new LinkedHashMap<>();
        views.forEach(v -> versions.put(v.name(), v.state().serverVersion() == null ? "unknown"
                : v.state().serverVersion()));
        boolean versionsDiffer = versions.values().stream().filter(s -> !"unknown".equals(s)).distinct().count() > 1;
        if (versionsDiffer) {
            evidence.put("serverVersions", versions);
            sentences.add("The API servers run different versions: " + describe(versions) + ".");
        }

        if (sentences.isEmpty()) {
            return List.of();
        }
        Severity severity = critical ? Severity.CRITICAL : Severity.WARNING;
        String lead = critical
                ? "The views do not read the same cluster data (split brain or a different cluster): "
                : "The views disagree: ";
        String hint = critical
                ? "Run `nodegate etcd` against the etcd of each server: different cluster IDs or disjoint member "
                + "lists confirm two etcd clusters. Keep the side that holds quorum of the original members, "
                + "back up workloads that exist only on the other side, then on the original side delete the "
                + "minority Node and its etcd member, wipe the server's data dir (k3s: /var/lib/rancher/k3s, "
                + "/etc/rancher/k3s) and rejoin it with --server pointing at the original cluster, same version."
                : "Read again: a Ready difference that persists for more than the node-monitor grace period "
                + "(50 s since v1.32) is not a race. Different versions are expected only during an upgrade.";
        return List.of(new Finding(CODE, severity, List.copyOf(affected), lead + String.join(" ", sentences),
                evidence, hint));
    }

    private static String describeNodeSets(Map<String, Map<String, NodeInfo>> byView) {
        List<String> parts = new ArrayList<>();
        for (var a : byView.entrySet()) {
            Set<String> mine = a.getValue().keySet();
            for (var b : byView.entrySet()) {
                if (a == b) {
                    continue;
                }
                Set<String> theirs = b.getValue().keySet();
                if (theirs.containsAll(mine) && theirs.size() > mine.size()) {
                    String self = mine.size() == 1 ? " (only " + mine.iterator().next() + ", as if alone)" : "";
                    parts.add("view " + a.getKey() + " sees " + mine.size() + " node(s)" + self
                            + ", a strict subset of the " + theirs.size() + " that view " + b.getKey() + " sees");
                    break;
                }
            }
        }
        if (parts.isEmpty()) {
            List<String> counts = new ArrayList<>();
            byView.forEach((v, nodes) -> counts.add(v + " " + nodes.size()));
            return "The views see different node sets (" + String.join(", ", counts) + " nodes).";
        }
        return capitalise(String.join("; ", parts)) + ".";
    }

    private static Map<String, String> asText(Map<String, Instant> times) {
        Map<String, String> out = new LinkedHashMap<>();
        times.forEach((k, t) -> out.put(k, t == null ? "unknown" : t.toString()));
        return out;
    }

    private static String describe(Map<String, String> perView) {
        List<String> parts = new ArrayList<>();
        perView.forEach((view, value) -> parts.add(Objects.toString(value) + " in " + view));
        return String.join(", ", parts);
    }

    private static String viewsWith(Map<String, String> ready, boolean isReady) {
        return String.join(", ", ready.entrySet().stream()
                .filter(e -> "True".equals(e.getValue()) == isReady).map(Map.Entry::getKey).toList());
    }

    private static String capitalise(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
