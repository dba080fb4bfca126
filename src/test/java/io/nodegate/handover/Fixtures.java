package io.nodegate.handover;

import io.nodegate.model.Condition;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.Taint;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small, explicit hand-overs and Nodes for the pure decisions' tests. */
final class Fixtures {

    static final Instant T0 = Instant.parse("2026-10-08T00:40:00Z");
    static final Instant NOW = Instant.parse("2026-10-22T06:10:00Z");

    private Fixtures() {
    }

    /** A Node as the kubelet reports it: Ready as given, one InternalIP, 8 GPUs, role burnin. */
    static NodeInfo node(String name, String uid, String ip, String systemUuid, String machineId, String bootId,
                         String ready, boolean cordoned, Instant created) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("node-role.kubernetes.io/burnin", "true");
        List<Taint> taints = new ArrayList<>();
        taints.add(new Taint("nvidia.com/gpu", null, "NoSchedule", null));
        return new NodeInfo(name, uid, "1", created, labels, Map.of(), taints, cordoned, null,
                List.of(new NodeInfo.NodeAddress("InternalIP", ip)),
                List.of(new Condition("Ready", ready, null, null, created, created)),
                new NodeSystemInfo(bootId, systemUuid, machineId, "6.8", "Ubuntu", "v1.34.3+rke2r3", "containerd"),
                Map.of("nvidia.com/gpu", "8"));
    }

    static NodeInfo gpuA07(String ready, boolean cordoned) {
        return node("gpu-a07", "uid-a07", "192.0.2.107", "ED7F385E-0000-4000-8000-000000000007", "mid-a07",
                "boot-a07", ready, cordoned, Instant.parse("2026-04-10T04:31:02Z"));
    }

    static HandoverSpec.Target target(NodeInfo n) {
        return new HandoverSpec.Target(n.name(), n.uid(), n.systemInfo().systemUuid(), n.systemInfo().machineId(),
                n.internalIps(), n.systemInfo().bootId(), List.copyOf(n.roles()),
                n.taints().stream().map(Object::toString).toList(), 8L, n.systemInfo().kubeletVersion(), null);
    }

    static StepRecord step(int n, String by, Instant at, StepRecord.Evidence... evidence) {
        return new StepRecord(n, by, at, null, null, List.of(evidence));
    }

    static StepRecord.Evidence ev(String name, String value) {
        return new StepRecord.Evidence(name, value);
    }

    /** A hand-over of the given targets to cluster-b, with these steps recorded. */
    static NodeHandover handover(List<NodeInfo> targets, StepRecord... steps) {
        HandoverSpec spec = new HandoverSpec(targets.stream().map(NodeInfo::name).toList(), HandoverType.MOVE,
                new HandoverSpec.Destination("cluster-b", "cluster-b"), "2026-10-31", "lee", null, List.of(), null,
                targets.stream().map(Fixtures::target).toList(), List.of(steps), null);
        return new NodeHandover(NodeHandover.API_VERSION, NodeHandover.KIND,
                new NodeHandover.Meta("h", "uid-h", "5", T0), spec, null);
    }

    static HandoverReading.Giving giving(NodeInfo... nodes) {
        return new HandoverReading.Giving("cluster-a", List.of(nodes), Map.of(), Map.of(), List.of(), null);
    }

    static HandoverReading reading(HandoverReading.Giving giving, HandoverReading.Other... others) {
        return new HandoverReading(NOW, giving, List.of(others), null, List.of(), null, null);
    }
}
