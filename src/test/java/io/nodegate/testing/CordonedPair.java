package io.nodegate.testing;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.NodeHandover;
import io.nodegate.handover.run.HandoverApi;
import io.nodegate.source.kube.ApiReader;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * The cluster the unexplained-cordon tests share (audit, collect and the watch judge NG171 on the same one): an RKE2
 * apiserver serving the NodeHandover CRD, and two Ready Nodes cordoned five days ago, gpu-a07 by kubectl (a target
 * of seed 000's case 2) and gpu-x01 by Rancher (named by no hand-over).
 */
public final class CordonedPair {

    private CordonedPair() {
    }

    /** Serves the CRD and creates the two cordoned Nodes on {@code api}. */
    public static void serve(ApiTestServer api) {
        api.setGitVersion("v1.34.3+rke2r3");
        CrdRules.install(api);
        Instant fiveDaysAgo = Instant.now().minus(Duration.ofDays(5)).truncatedTo(ChronoUnit.SECONDS);
        api.create(cordonedBy(SeedCluster.node("gpu-a07", "192.0.2.107", "True", true, Map.of(), "boot-a07",
                "uuid-a07", 8, Instant.now(), null), "kubectl", fiveDaysAgo));
        api.create(cordonedBy(SeedCluster.node("gpu-x01", "192.0.2.201", "True", true, Map.of(), "boot-x01",
                "uuid-x01", 8, Instant.now(), null), "rancher", fiveDaysAgo));
    }

    /**
     * Opens nodegate's own record of seed 000's case 2 (gpu-a06..a10), stored as `handover open` stores it, and returns
     * the record as saved.
     */
    public static NodeHandover openCase2(ApiTestServer api) {
        NodeHandover record = HandoverApi.readSaved(Path.of("examples/handover-case-2/nodehandover.json"));
        new HandoverApi(new ApiReader(api.client())).create(new NodeHandover(record.apiVersion(), record.kind(),
                new NodeHandover.Meta(record.metadata().name(), null, null, null), record.spec(), null));
        return record;
    }

    /**
     * The Node as a LIST returns it after {@code manager} cordoned it: the taint, the kubelet's status entry and the
     * managedFields entry that owns spec.unschedulable.
     */
    public static Node cordonedBy(Node node, String manager, Instant at) {
        node.getSpec().setTaints(List.of(new TaintBuilder().withKey("node.kubernetes.io/unschedulable")
                .withEffect("NoSchedule").withTimeAdded(at.toString()).build()));
        node.getMetadata().setManagedFields(List.of(
                new ManagedFieldsEntryBuilder().withApiVersion("v1").withFieldsType("FieldsV1")
                        .withNewFieldsV1().addToAdditionalProperties("f:status", Map.of()).endFieldsV1()
                        .withManager("kubelet").withOperation("Update").withSubresource("status")
                        .withTime(Instant.now().toString()).build(),
                new ManagedFieldsEntryBuilder().withApiVersion("v1").withFieldsType("FieldsV1")
                        .withNewFieldsV1().addToAdditionalProperties("f:spec",
                                Map.of("f:unschedulable", Map.of())).endFieldsV1()
                        .withManager(manager).withOperation("Update").withTime(at.toString()).build()));
        return node;
    }
}
