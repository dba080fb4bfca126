package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.testing.ControlPlaneFixtures;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.nodegate.testing.ControlPlaneFixtures.node;
import static io.nodegate.testing.ControlPlaneFixtures.state;
import static org.assertj.core.api.Assertions.assertThat;

class DivergentViewsDetectorTest {

    private final DivergentViewsDetector detector = new DivergentViewsDetector();

    private List<Finding> detect(NamedView... views) {
        return detector.detect(List.of(views), AuditSettings.DEFAULTS);
    }

    private static NamedView view(String name, ControlPlaneFixtures.StateBuilder state) {
        return new NamedView(name, state.build());
    }

    @Test
    void seed001SplitOffServerSeesOnlyItselfAsAnotherObject() {
        List<Finding> findings = detect(view("cp-node-a", ControlPlaneFixtures.seed001FromCpNodeA()),
                view("cp-node-c", ControlPlaneFixtures.seed001FromCpNodeC()));

        assertThat(findings).hasSize(1);
        Finding f = findings.get(0);
        assertThat(f.code()).isEqualTo("NG207");
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.nodes()).containsExactly("cp-node-a", "cp-node-b", "cp-node-c", "worker-01", "worker-02");
        assertThat(f.message())
                .contains("View cp-node-c sees 1 node(s) (only cp-node-c, as if alone), a strict subset of the 5")
                .contains("Node cp-node-c is a different object in each view: uid "
                        + "7c0ffee0-0000-4000-8000-0000000000c1 in cp-node-a, b1ab1ab1-0000-4000-8000-0000000000c2 in "
                        + "cp-node-c, created 2026-05-30T05:00:00Z in cp-node-a, 2026-08-14T10:00:00Z in cp-node-c")
                .contains("Node cp-node-c is Ready in cp-node-c but not in cp-node-a")
                .contains("Node cp-node-c has different roles: control-plane,etcd,master in cp-node-a, "
                        + "control-plane,master in cp-node-c.");
        assertThat(f.evidence()).containsKeys("nodeSets", "missingFromView", "uidMismatches", "readyMismatches",
                        "roleMismatches")
                .doesNotContainKey("serverVersions");
        @SuppressWarnings("unchecked")
        Map<String, List<String>> missing = (Map<String, List<String>>) f.evidence().get("missingFromView");
        assertThat(missing).containsOnlyKeys("cp-node-c");
        assertThat(missing.get("cp-node-c")).containsExactly("cp-node-a", "cp-node-b", "worker-01", "worker-02");
        assertThat(f.hint()).contains("nodegate etcd").contains("--server");
    }

    @Test
    void twoServersOfOneHealthyClusterAgree() {
        assertThat(detect(view("cp-node-a", ControlPlaneFixtures.seed001FromCpNodeA()),
                view("cp-node-b", ControlPlaneFixtures.seed001FromCpNodeB()))).isEmpty();
    }

    @Test
    void fewerThanTwoViewsCannotDisagree() {
        assertThat(detect(view("cp-node-a", ControlPlaneFixtures.seed001FromCpNodeA()))).isEmpty();
    }

    @Test
    void readyDifferenceAloneIsAWarning() {
        NamedView a = view("a", state().node(node("n1")).node(node("n2")));
        NamedView b = view("b", state().node(node("n1")).node(node("n2").ready("False")));

        List<Finding> findings = detect(a, b);

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.nodes()).containsExactly("n2");
            assertThat(f.message()).contains("Node n2 is Ready in a but not in b (Ready True in a, False in b)");
            assertThat(f.evidence()).containsOnlyKeys("readyMismatches");
        });
    }

    @Test
    void roleDifferenceAloneIsAWarning() {
        NamedView a = view("a", state().node(node("n1").roles("control-plane", "etcd")));
        NamedView b = view("b", state().node(node("n1").roles("control-plane")));

        assertThat(detect(a, b)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.evidence()).containsOnlyKeys("roleMismatches");
        });
    }

    @Test
    void notReadyInBothViewsIsNoDifference() {
        NamedView a = view("a", state().node(node("n1").ready("Unknown")));
        NamedView b = view("b", state().node(node("n1").ready("False")));
        assertThat(detect(a, b)).isEmpty();
    }

    @Test
    void differentServerVersionsAloneIsAWarning() {
        NamedView a = view("a", state().serverVersion("v1.34.1+rke2r1").node(node("n1")));
        NamedView b = view("b", state().serverVersion("v1.33.5+rke2r1").node(node("n1")));

        assertThat(detect(a, b)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.nodes()).isEmpty();
            assertThat(f.message()).contains("different versions: v1.34.1+rke2r1 in a, v1.33.5+rke2r1 in b");
        });
    }

    @Test
    void unknownServerVersionIsNotADifference() {
        NamedView a = view("a", state().serverVersion(null).node(node("n1")));
        NamedView b = view("b", state().serverVersion("v1.33.5+rke2r1").node(node("n1")));
        assertThat(detect(a, b)).isEmpty();
    }

    @Test
    void sameUidWithDifferentCreationTimeIsAWarning() {
        NamedView a = view("a", state().node(node("n1").age(Duration.ofDays(10))));
        NamedView b = view("b", state().node(node("n1").age(Duration.ofDays(11))));

        assertThat(detect(a, b)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.evidence()).containsOnlyKeys("creationMismatches");
        });
    }

    @Test
    void differentUidWithEqualNodeSetsIsCritical() {
        NamedView a = view("a", state().node(node("n1").uid("11111111-aaaa")));
        NamedView b = view("b", state().node(node("n1").uid("22222222-bbbb")));

        assertThat(detect(a, b)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.evidence()).containsOnlyKeys("uidMismatches");
        });
    }

    @Test
    void disjointNodeSetsAreCriticalEvenWithoutSubset() {
        NamedView a = view("a", state().node(node("n1")).node(node("n2")));
        NamedView b = view("b", state().node(node("n2")).node(node("n3")));

        assertThat(detect(a, b)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.nodes()).containsExactly("n1", "n3");
            assertThat(f.message()).contains("The views see different node sets (a 2, b 2 nodes)");
        });
    }

    @Test
    void threeViewsNameTheOneThatDiffers() {
        List<Finding> findings = detect(view("cp-node-a", ControlPlaneFixtures.seed001FromCpNodeA()),
                view("cp-node-b", ControlPlaneFixtures.seed001FromCpNodeB()),
                view("cp-node-c", ControlPlaneFixtures.seed001FromCpNodeC()));

        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(f.message()).contains("View cp-node-c sees 1 node(s)")
                    .doesNotContain("cp-node-a sees 5").doesNotContain("cp-node-b sees 5");
        });
    }

    @Test
    void tableShowsUidPrefixesLongEnoughToTellObjectsApart() {
        NamedView a = view("a", state().node(node("n1").uid("00000000-0000-0000-0000-000000000001")));
        NamedView b = view("b", state().node(node("n1").uid("00000000-0000-0000-0000-000000000002")));
        NamedView c = view("c", state().node(node("n1").uid("3f2a9c1e-aaaa-4bbb-8ccc-000000000001")));

        ViewsTable same = ViewsTable.of(List.of(a, a));
        ViewsTable shared = ViewsTable.of(List.of(a, b));
        ViewsTable random = ViewsTable.of(List.of(a, c));

        assertThat(same.rows().get(0).cells().get("a").uidShort()).isEqualTo("00000000");
        assertThat(shared.rows().get(0).cells().get("a").uidShort()).isEqualTo("00000000-0000-0000-0000-000000000001");
        assertThat(shared.rows().get(0).cells().get("b").uidShort()).isEqualTo("00000000-0000-0000-0000-000000000002");
        assertThat(random.rows().get(0).cells().get("c").uidShort()).isEqualTo("3f2a9c1e");
    }
}
