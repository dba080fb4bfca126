package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * NG201: endpoints that should be one cluster answer with two or more cluster IDs (seed 001: a server
 * started without --server on an old data dir formed its own one-member cluster). Quorum inside one cluster
 * is a majority of registered members, so a partition cannot do this; two cluster IDs means two databases
 * that both accept writes.
 */
public final class EtcdSplitBrain implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG201;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<EtcdView.Side> sides = EtcdView.sides(state.etcd());
        if (sides.size() < 2) {
            return List.of();
        }
        Original judged = originalSide(sides);
        int original = judged.index();

        List<Map<String, Object>> sideEvidence = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        Set<String> splitNodes = new TreeSet<>();
        for (int i = 0; i < sides.size(); i++) {
            EtcdView.Side side = sides.get(i);
            List<EtcdMember> registered = side.registered();
            List<String> leaders = side.leaders().isEmpty() ? List.of("unknown (no status read)")
                    : side.leaders().stream().map(id -> id == 0 ? "none" : side.label(id)).toList();
            List<String> answering = side.answeredIds().stream().map(side::label).toList();
            int voters = side.voters().size();
            long reachableVoters = side.voters().stream().filter(m -> side.answeredIds().contains(m.id())).count();

            Map<String, Object> ev = new LinkedHashMap<>();
            ev.put("side", i + 1);
            ev.put("clusterId", EtcdIds.hex(side.clusterId()));
            ev.put("endpoints", side.endpointNames());
            ev.put("answeringMembers", answering);
            ev.put("leader", leaders);
            ev.put("registeredMembers", EtcdView.labels(registered));
            ev.put("answeringVoters", reachableVoters + "/" + voters);
            ev.put("original", i == original);
            sideEvidence.add(ev);

            parts.add("side " + (i + 1) + " = cluster " + EtcdIds.hex(side.clusterId()) + " at "
                    + String.join(", ", side.endpointNames()) + " (answering " + String.join(", ", answering)
                    + "; leader " + String.join("/", leaders) + "; lists " + registered.size() + " member(s): "
                    + String.join(", ", registered.stream().map(EtcdView::name).toList()) + ")");
            if (i != original) {
                side.answeredIds().forEach(id -> side.registered().stream().filter(m -> m.id() == id)
                        .forEach(m -> splitNodes.add(EtcdView.nodeNameOf(m))));
            }
        }
        String verdict;
        if (original >= 0) {
            EtcdView.Side o = sides.get(original);
            long reachable = o.voters().stream().filter(m -> o.answeredIds().contains(m.id())).count();
            int quorum = o.voters().size() / 2 + 1;
            verdict = "Side " + (original + 1) + " is the original cluster: " + (judged.includesOthers()
                    ? "its member list includes the member names answering on the other side(s)"
                    : "its member list is the largest (it does not include the other side's members: compare "
                    + "`kubectl get nodes` from each side to be sure)") + "; " + reachable + " of its "
                    + o.voters().size() + " registered voters answer there (quorum " + quorum + ", "
                    + (reachable >= quorum ? "held" : "LOST") + ").";
        } else {
            verdict = "Which side is the original cannot be told from the member lists (neither includes the other's "
                    + "members, or they are equally large): compare `kubectl get nodes` from each side.";
        }
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("clusterIds", sides.stream().map(s -> EtcdIds.hex(s.clusterId())).toList());
        evidence.put("sides", sideEvidence);
        String message = "etcd endpoints answer with " + sides.size() + " different cluster IDs, each its own "
                + "database accepting writes: " + String.join("; ", parts) + ". " + verdict;
        String hint = "Stop the etcd/k3s/RKE2 server on the side that is not the original, save anything written "
                + "only there, remove its stale member from the original cluster (etcdctl member remove <id>), wipe "
                + "its data dir (k3s-uninstall.sh / rke2-uninstall.sh) and rejoin with --server pointing at the "
                + "original cluster. Check `kubectl get nodes` from each side first.";
        return List.of(new Finding(code(), Severity.CRITICAL, List.copyOf(splitNodes), message, evidence, hint));
    }

    /** The side judged original (-1: none) and whether it was because its list includes the others' members. */
    record Original(int index, boolean includesOthers) {
    }

    /**
     * Index of the side that holds the originally registered members: the one whose member list includes the
     * names answering on every other side (the forked member is still registered in the original cluster),
     * larger list first. -1 when that does not single out one side.
     */
    static Original originalSide(List<EtcdView.Side> sides) {
        int best = -1;
        int bestSize = -1;
        boolean tie = false;
        for (int i = 0; i < sides.size(); i++) {
            Set<String> names = new LinkedHashSet<>();
            sides.get(i).allListedMembers().forEach(m -> names.add(m.name()));
            boolean includesOthers = true;
            for (int j = 0; j < sides.size(); j++) {
                if (j == i) {
                    continue;
                }
                EtcdView.Side other = sides.get(j);
                for (long id : other.answeredIds()) {
                    String otherName = other.allListedMembers().stream().filter(m -> m.id() == id)
                            .map(EtcdView::name).findFirst().orElse(null);
                    if (otherName == null || !names.contains(otherName)) {
                        includesOthers = false;
                    }
                }
            }
            int size = sides.get(i).registered().size();
            if (!includesOthers) {
                continue;
            }
            if (size > bestSize) {
                best = i;
                bestSize = size;
                tie = false;
            } else if (size == bestSize) {
                tie = true;
            }
        }
        if (best >= 0 && !tie) {
            return new Original(best, true);
        }
        // Nobody includes the others: fall back to a strictly larger registered list.
        int largest = -1;
        int largestSize = -1;
        boolean largestTie = false;
        for (int i = 0; i < sides.size(); i++) {
            int size = sides.get(i).registered().size();
            if (size > largestSize) {
                largest = i;
                largestSize = size;
                largestTie = false;
            } else if (size == largestSize) {
                largestTie = true;
            }
        }
        return new Original(best < 0 && !largestTie ? largest : -1, false);
    }
}
