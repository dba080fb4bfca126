package io.nodegate.handover.run;

import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.deploy.CrdRules;
import io.nodegate.handover.NodeHandover;
import io.nodegate.model.CordonOwner;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.SeededClusterTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Step 1 of a hand-over (each target cordoned, emptied) explains the cordon on the Node itself once it is recorded:
 * {@value CordonOwner#REASON_ANNOTATION} names the hand-over, the step, who and when. Seed 000's gpu-a10 and gpu-a11,
 * both cordoned and drained, on the test API server with the NodeHandover CRD's rules.
 */
class HandoverCordonReasonTest extends SeededClusterTest {

    private static final String DUE = java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString();
    private static final String A10 = "/api/v1/nodes/gpu-a10";
    private static final String A11 = "/api/v1/nodes/gpu-a11";

    @BeforeEach
    void setUp() {
        CliRun saved = seedAndSaveBaseline();
        assertThat(saved.exitCode()).as(saved.all()).isZero();
        CrdRules.install(api);
        CliRun opened = cli("handover", "open", "a-to-b", "--nodes", "gpu-a10,gpu-a11", "--type", "move", "--to",
                "cluster-b", "--due", DUE, "--requester", "lee", "--ticket", "https://chat.example/t/1");
        assertThat(opened.exitCode()).as(opened.all()).isZero();
    }

    private NodeHandover read() {
        return new HandoverApi(new ApiReader(client)).get("a-to-b").orElseThrow();
    }

    private Node node(String name) {
        return api.client().nodes().withName(name).get();
    }

    private String reason(String name) {
        Map<String, String> a = node(name).getMetadata().getAnnotations();
        return a == null ? null : a.get(CordonOwner.REASON_ANNOTATION);
    }

    @Test
    void theReasonIsWrittenOnEachCordonedTargetAndNoOtherAnnotationIsLost() {
        // gpu-a10 has no annotations at all; gpu-a11 has RKE2's, which the checks' read does not keep
        api.client().nodes().withName("gpu-a10").edit(n -> {
            n.getMetadata().setAnnotations(null);
            return n;
        });
        CliRun one = cli("handover", "step", "a-to-b", "1", "--by", "kim", "--note", "cordoned and drained");
        assertThat(one.exitCode()).as(one.all()).isZero();
        String stamp = read().step(1).orElseThrow().at().toString();
        String expected = "hand-over a-to-b, step 1 (empty) recorded by kim at " + stamp;
        assertThat(reason("gpu-a10")).isEqualTo(expected);
        assertThat(reason("gpu-a11")).isEqualTo(expected);
        assertThat(node("gpu-a11").getMetadata().getAnnotations()).containsKey("rke2.io/node-args");
        assertThat(node("gpu-a11").getSpec().getUnschedulable()).isTrue();
        assertThat(one.out()).contains("note: " + CordonOwner.REASON_ANNOTATION + " written: " + expected,
                "note: gpu-a10: " + CordonOwner.REASON_ANNOTATION + " written",
                "note: gpu-a11: " + CordonOwner.REASON_ANNOTATION + " written", "recorded step 1 (empty) of a-to-b");
        assertThat(api.requests("PATCH", A10)).isEqualTo(1);
        assertThat(api.requests("PATCH", A11)).isEqualTo(1);
    }

    @Test
    void aReasonSomeoneElseWroteIsKept() {
        api.client().nodes().withName("gpu-a11").edit(n -> {
            n.getMetadata().getAnnotations().put(CordonOwner.REASON_ANNOTATION, "RMA 4411: bad DIMM");
            return n;
        });
        CliRun one = cli("handover", "step", "a-to-b", "1", "--by", "kim");
        assertThat(one.exitCode()).as(one.all()).isZero();
        assertThat(reason("gpu-a11")).isEqualTo("RMA 4411: bad DIMM");
        assertThat(reason("gpu-a10")).startsWith("hand-over a-to-b, step 1 (empty) recorded by kim at ");
        assertThat(one.out()).contains("note: gpu-a11: " + CordonOwner.REASON_ANNOTATION + " left as is");
        assertThat(api.requests("PATCH", A11)).isZero();
    }

    @Test
    void aNodeThatChangedSinceTheChecksReadItIsNotAnnotated() {
        // another writer (a kubelet's update, a person) lands between the step's read and the reason's PATCH
        api.beforeServing("PATCH", A11, "{\"metadata\":{\"labels\":{\"example.com/rack\":\"r7\"}}}");
        CliRun one = cli("handover", "step", "a-to-b", "1", "--by", "kim");
        assertThat(one.exitCode()).as(one.all()).isEqualTo(3);
        assertThat(one.err()).contains("step 1 of a-to-b IS recorded, but " + CordonOwner.REASON_ANNOTATION
                + " was not written on gpu-a11", "changed since the step's checks read it", "NOT written",
                "Do not record the step again");
        assertThat(one.err()).doesNotContain("gpu-a10 (");
        assertThat(read().recorded(1)).isTrue();
        assertThat(reason("gpu-a11")).isNull();
        assertThat(node("gpu-a11").getMetadata().getLabels()).containsEntry("example.com/rack", "r7");
        assertThat(reason("gpu-a10")).startsWith("hand-over a-to-b, step 1");
        assertThat(api.requests("PATCH", A11)).as("tried once, never again on the newer version").isEqualTo(1);
    }

    @Test
    void aFailedWriteIsNamedAndTheStepStaysRecorded() {
        api.failOn("PATCH", A10, 403);
        CliRun one = cli("handover", "step", "a-to-b", "1", "--by", "kim");
        assertThat(one.exitCode()).as(one.all()).isEqualTo(3);
        assertThat(one.err()).contains("IS recorded", "not written on gpu-a10 (writing the reason failed: the PATCH "
                + "was refused with HTTP 403 (RBAC: this user may not patch Nodes)");
        assertThat(one.out()).contains("note: gpu-a11: " + CordonOwner.REASON_ANNOTATION + " written");
        assertThat(read().recorded(1)).isTrue();
        assertThat(reason("gpu-a10")).isNull();
        assertThat(reason("gpu-a11")).startsWith("hand-over a-to-b, step 1");
    }

    @Test
    void aFailedReadWritesNothing() {
        api.failOn("GET", "/api/v1/nodes", 500);
        CliRun one = cli("handover", "step", "a-to-b", "1", "--by", "kim");
        assertThat(one.exitCode()).as(one.all()).isEqualTo(3);
        assertThat(one.err()).contains("was not recorded");
        api.clearFailures();
        assertThat(read().recorded(1)).isFalse();
        assertThat(api.requests("PATCH", A10) + api.requests("PATCH", A11)).isZero();
        assertThat(reason("gpu-a10")).isNull();
        assertThat(reason("gpu-a11")).isNull();
    }

    @Test
    void aStepThatFailsOrIsOverriddenWritesNothing() {
        api.client().nodes().withName("gpu-a11").edit(n -> {
            n.getSpec().setUnschedulable(false);
            return n;
        });
        CliRun failed = cli("handover", "step", "a-to-b", "1", "--by", "kim");
        assertThat(failed.exitCode()).as(failed.all()).isEqualTo(5);
        assertThat(read().recorded(1)).isFalse();

        CliRun over = cli("handover", "step", "a-to-b", "1", "--by", "kim", "--override", "lee: a11 stays in use");
        assertThat(over.exitCode()).as(over.all()).isZero();
        assertThat(read().recorded(1)).isTrue();
        assertThat(over.out()).contains(CordonOwner.REASON_ANNOTATION + " not written: the step was recorded over "
                + "checks that said FAIL");
        assertThat(api.requests("PATCH", A10) + api.requests("PATCH", A11)).isZero();
        assertThat(reason("gpu-a10")).isNull();
        assertThat(reason("gpu-a11")).isNull();
    }
}
