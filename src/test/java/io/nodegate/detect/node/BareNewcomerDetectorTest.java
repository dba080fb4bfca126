package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.nodegate.testing.NodeFixtures.NOW;
import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class BareNewcomerDetectorTest {

    private final BareNewcomerDetector detector = new BareNewcomerDetector();

    @Test
    void recentNodeWithoutRoleOrCordonFiresInAClusterWithRoles() {
        var state = cluster()
                .healthy(node("keep-1").role("burnin"))
                .healthy(node("ctl-1").role("control-plane").role("etcd"))
                .healthy(node("new-01").created(NOW.minus(Duration.ofHours(5))).internalIp("198.51.100.21"))
                .build();

        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG111");
            assertThat(f.nodes()).containsExactly("new-01");
            assertThat(f.message()).contains("5h ago");
            assertThat(f.evidence()).containsEntry("ageSeconds", 5L * 3600).containsEntry("nodesWithRoles", 2);
            assertThat(f.hint()).contains("kubectl cordon new-01");
        });
    }

    @Test
    void newcomerWithRoleLabelOrCordonDoesNotFire() {
        var state = cluster()
                .healthy(node("keep-1").role("burnin"))
                .healthy(node("new-02").created(NOW.minus(Duration.ofHours(5))).role("burnin"))
                .healthy(node("new-03").created(NOW.minus(Duration.ofHours(5))).cordoned(NOW.minusSeconds(60)))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void olderThanTheWindowDoesNotFire() {
        var state = cluster()
                .healthy(node("keep-1").role("burnin"))
                .healthy(node("plain").created(NOW.minus(Duration.ofHours(72)).minusSeconds(1)))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void clusterWhereNoNodeCarriesRolesDoesNotFire() {
        var state = cluster()
                .healthy(node("old-1"))
                .healthy(node("old-2"))
                .healthy(node("new-01").created(NOW.minus(Duration.ofHours(1))))
                .build();
        assertThat(detector.detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    /**
     * A fresh RKE2 cluster: the server carries the roles RKE2 gives it (control-plane, etcd, master: the real RKE2
     * server in ../shared/field/k8s/edgexr-nori-rke2/nodes.json), and its agents none, since NodeRestriction
     * (plugin/pkg/admission/noderestriction/admission.go) refuses node-role.kubernetes.io labels to a kubelet and
     * RKE2 sets them only on servers. Nobody labels workers here, so a new agent is no newcomer to warn about (it was
     * NG111 for every agent of a freshly started lab). Once one worker carries a role, the bare new one is.
     */
    @Test
    void aClusterWhereOnlyTheServersCarryTheirOwnRolesDoesNotFireForNewAgents() throws java.io.IOException {
        java.nio.file.Path file = java.nio.file.Path.of("..", "shared", "field", "k8s", "edgexr-nori-rke2",
                "nodes.json");
        assertThat(file).as("the field artifacts beside the repository (shared/field)").exists();
        java.util.List<String> serverRoles = new java.util.ArrayList<>();
        tools.jackson.databind.JsonNode labels = tools.jackson.databind.json.JsonMapper.builder().build()
                .readTree(file.toFile()).get("items").get(0).get("metadata").get("labels");
        for (String key : labels.propertyNames()) {
            if (key.startsWith("node-role.kubernetes.io/")) {
                serverRoles.add(key.substring("node-role.kubernetes.io/".length()));
            }
        }
        assertThat(serverRoles).containsExactlyInAnyOrder("control-plane", "etcd", "master");
        var server = node("server-1");
        serverRoles.forEach(server::role);
        var fresh = cluster()
                .healthy(server)
                .healthy(node("agent-1").created(NOW.minus(Duration.ofMinutes(2))))
                .healthy(node("agent-2").created(NOW.minus(Duration.ofMinutes(2))));
        assertThat(detector.detect(fresh.build(), AuditSettings.DEFAULTS)).isEmpty();

        var labelled = fresh.healthy(node("worker-1").role("worker"));
        assertThat(detector.detect(labelled.build(), AuditSettings.DEFAULTS)).extracting(f -> f.nodes().get(0))
                .containsExactlyInAnyOrder("agent-1", "agent-2");
    }
}
