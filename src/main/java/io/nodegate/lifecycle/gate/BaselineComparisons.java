package io.nodegate.lifecycle.gate;

import io.nodegate.model.Gpu;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/** The five comparisons of check (d), one class each. */
final class BaselineComparisons {

    private BaselineComparisons() {
    }

    /** The nodes seen now by name, and the baseline's targets that are already gone. */
    record Now(Map<String, NodeInfo> nodes, List<Baseline.Target> removedTargets) {
        static Now of(GateInput in) {
            Map<String, NodeInfo> now = new TreeMap<>();
            in.evidence().nodes().forEach(n -> now.put(n.name(), n));
            return new Now(now, in.baseline().targets().stream().filter(t -> !now.containsKey(t.name())).toList());
        }

        TreeSet<String> removedNames() {
            TreeSet<String> out = new TreeSet<>();
            removedTargets.forEach(t -> out.add(t.name()));
            return out;
        }
    }

    /**
     * etcd membership: the same member ids as at baseline time. A worker's removal never changes etcd; a server's
     * member is removed first ("etcd first"), so the members of the gated node and of targets already removed may be
     * gone, and only they.
     */
    static final class EtcdMembers implements BaselineComparison {
        @Override
        public void compare(GateInput in, Now now, List<String> changes, Map<String, String> evid) {
            Baseline baseline = in.baseline();
            List<Baseline.EtcdMemberRef> etcdNow = GateDecision.currentEtcd(in.evidence().etcd());
            if (baseline.etcdMembers() == null && etcdNow == null) {
                evid.put("etcd", "not compared: no etcd source at baseline or now");
            } else if (baseline.etcdMembers() == null) {
                changes.add("etcd members given now but not recorded in the baseline: save a new baseline with an etcd source");
            } else if (etcdNow == null) {
                changes.add("the baseline recorded etcd members but no etcd source was given now");
            } else {
                TreeSet<String> before = ids(baseline.etcdMembers());
                TreeSet<String> after = ids(etcdNow);
                evid.put("etcd", after.toString());
                TreeSet<String> expectedGone = new TreeSet<>();
                for (Baseline.EtcdMemberRef m : baseline.etcdMembers()) {
                    if (!after.contains(m.id()) && ownMember(in, now, m) != null) {
                        expectedGone.add(m.id());
                        evid.put("etcd member " + m.id() + " gone", ownMember(in, now, m));
                    }
                }
                after.addAll(expectedGone);
                if (!before.equals(after)) {
                    TreeSet<String> gone = new TreeSet<>(before);
                    gone.removeAll(after);
                    TreeSet<String> added = new TreeSet<>(after);
                    added.removeAll(before);
                    changes.add("etcd members changed: gone " + gone + ", new " + added);
                }
            }
        }

        /** Whose member this was, when it was the gated node's or a removed target's; else null. */
        private static String ownMember(GateInput in, Now now, Baseline.EtcdMemberRef m) {
            NodeInfo gated = in.evidence().target();
            if (gated != null) {
                String how = EtcdMembership.howExactly(EtcdMembership.Identity.of(gated, in.baselineTarget()),
                        m.name(), m.peerUrls());
                if (how != null) {
                    return "the gated node " + gated.name() + "'s own (by " + how + "), removed first as required";
                }
            }
            for (Baseline.Target t : now.removedTargets()) {
                String how = EtcdMembership.howExactly(EtcdMembership.Identity.of(t), m.name(), m.peerUrls());
                if (how != null) {
                    return "removed target " + t.name() + "'s (by " + how + ")";
                }
            }
            return null;
        }

        private static TreeSet<String> ids(List<Baseline.EtcdMemberRef> members) {
            TreeSet<String> out = new TreeSet<>();
            members.forEach(m -> out.add(m.id()));
            return out;
        }
    }

    /** Every other node as it was (uid, Ready, cordon); no new node; remaining targets not recreated. */
    static final class OtherNodes implements BaselineComparison {
        @Override
        public void compare(GateInput in, Now nowNodes, List<String> changes, Map<String, String> evid) {
            Baseline baseline = in.baseline();
            Map<String, NodeInfo> now = nowNodes.nodes();
            TreeSet<String> known = new TreeSet<>();
            baseline.targets().forEach(t -> known.add(t.name()));
            for (Baseline.OtherNode o : baseline.nonTargets()) {
                known.add(o.name());
                NodeInfo n = now.get(o.name());
                if (n == null) {
                    changes.add("non-target node " + o.name() + " is gone");
                    continue;
                }
                if (!Objects.equals(o.uid(), n.uid())) {
                    changes.add("non-target node " + o.name() + " was recreated (uid " + o.uid() + " -> " + n.uid() + ")");
                }
                if (!Objects.equals(o.ready(), n.readyStatus())) {
                    changes.add("non-target node " + o.name() + " Ready " + o.ready() + " -> " + n.readyStatus());
                }
                if (o.unschedulable() != n.unschedulable()) {
                    changes.add("non-target node " + o.name() + " unschedulable " + o.unschedulable() + " -> " + n.unschedulable());
                }
            }
            for (NodeInfo n : now.values()) {
                if (!known.contains(n.name())) {
                    changes.add("new node " + n.name() + " (created " + n.created() + ", roles " + n.roles()
                            + ", unschedulable " + n.unschedulable() + ")");
                }
            }
            String gated = in.evidence().target().name();
            for (Baseline.Target t : baseline.targets()) {
                NodeInfo n = now.get(t.name());
                if (n != null && !t.name().equals(gated) && !Objects.equals(t.uid(), n.uid())) {
                    changes.add("target " + t.name() + " was recreated after the baseline (uid " + t.uid() + " -> " + n.uid() + ")");
                }
            }
        }
    }

    /** DaemonSet desired counts: the baseline's minus the share of targets already removed. */
    static final class DaemonSetsDesired implements BaselineComparison {
        @Override
        public void compare(GateInput in, Now now, List<String> changes, Map<String, String> evid) {
            Map<String, DaemonSetInfo> dsNow = new TreeMap<>();
            in.evidence().daemonSets().forEach(d -> dsNow.put(d.namespace() + "/" + d.name(), d));
            TreeSet<String> removedNames = now.removedNames();
            for (Baseline.DaemonSetCount d : in.baseline().daemonSets()) {
                DaemonSetInfo cur = dsNow.remove(d.key());
                long share = d.onTargets().stream().filter(removedNames::contains).count();
                long expected = d.desired() - share;
                if (cur == null) {
                    changes.add("DaemonSet " + d.key() + " is gone (baseline desired " + d.desired() + ")");
                } else if (cur.desired() != expected) {
                    changes.add("DaemonSet " + d.key() + " desired " + cur.desired() + ", expected " + expected
                            + " (baseline " + d.desired() + " minus " + share + " removed target(s))");
                }
            }
            dsNow.keySet().forEach(k -> changes.add("DaemonSet " + k + " is new since the baseline"));
        }
    }

    /** GPU capacity totals: the baseline's minus the removed targets' capacity. */
    static final class GpuTotals implements BaselineComparison {
        @Override
        public void compare(GateInput in, Now now, List<String> changes, Map<String, String> evid) {
            Baseline baseline = in.baseline();
            Map<String, Long> expectedGpu = new TreeMap<>(baseline.gpuTotals());
            for (Baseline.Target t : now.removedTargets()) {
                t.gpuCapacity().forEach((k, v) -> expectedGpu.merge(k, -v, Long::sum));
            }
            expectedGpu.values().removeIf(v -> v == 0);
            Map<String, Long> gpuNow = new TreeMap<>(Gpu.totals(now.nodes().values()));
            gpuNow.values().removeIf(v -> v == 0);
            evid.put("gpuTotals", gpuNow.toString());
            if (!expectedGpu.equals(gpuNow)) {
                changes.add("GPU totals " + gpuNow + ", expected " + expectedGpu + " (baseline "
                        + new TreeMap<>(baseline.gpuTotals()) + " minus removed targets)");
            }
        }
    }

    /** MetalLB L2 announcers (ServiceL2Status) as at baseline time. */
    static final class MetalLbAnnouncers implements BaselineComparison {
        @Override
        public void compare(GateInput in, Now now, List<String> changes, Map<String, String> evid) {
            List<String> announcers = in.evidence().metallbAnnouncers();
            if (!Objects.equals(in.baseline().metallb(), announcers)) {
                changes.add("MetalLB announcers " + describe(announcers) + ", baseline " + describe(in.baseline().metallb()));
            }
            evid.put("metallb", describe(announcers));
        }

        private static String describe(List<String> announcers) {
            return announcers == null ? "(MetalLB ServiceL2Status not served)" : announcers.toString();
        }
    }

    static List<BaselineComparison> all() {
        return new ArrayList<>(List.of(new EtcdMembers(), new OtherNodes(), new DaemonSetsDesired(), new GpuTotals(),
                new MetalLbAnnouncers()));
    }
}
