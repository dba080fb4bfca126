package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Severity;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static io.nodegate.testing.NodeFixtures.nodePassword;
import static org.assertj.core.api.Assertions.assertThat;

class NodePasswordDetectorsTest {

    @Test
    void orphanFiresForTypedAndUntypedSecretsWithoutNode() {
        var state = cluster()
                .healthy(node("keep-1"))
                .secret(nodePassword("keep-1.node-password.rke2", "rke2.cattle.io/node-password"))
                .secret(nodePassword("gpu-a11.node-password.rke2", "rke2.cattle.io/node-password"))
                .secret(nodePassword("gpu-b01.node-password.k3s", null))
                .build();

        var findings = new OrphanNodePasswordDetector().detect(state, AuditSettings.DEFAULTS);

        assertThat(findings).extracting(f -> f.nodes().get(0)).containsExactly("gpu-a11", "gpu-b01");
        assertThat(findings).allSatisfy(f -> {
            assertThat(f.code()).isEqualTo("NG140");
            assertThat(f.severity()).isEqualTo(Severity.INFO);
        });
        assertThat(findings.get(0).evidence()).containsEntry("secretType", "rke2.cattle.io/node-password");
        assertThat(findings.get(1).evidence()).containsEntry("secretType", "(untyped)")
                .containsEntry("secret", "kube-system/gpu-b01.node-password.k3s");
    }

    @Test
    void upperCaseNodeNameMatchesItsLowerCasedSecret() {
        var state = cluster()
                .healthy(node("GPU-A07"))
                .secret(nodePassword("gpu-a07.node-password.rke2", null))
                .build();

        assertThat(new OrphanNodePasswordDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
        assertThat(new MissingNodePasswordDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void missingFiresForANodeWithoutSecretWhenTheClusterUsesThem() {
        var state = cluster()
                .healthy(node("keep-1"))
                .healthy(node("gpu-a07"))
                .secret(nodePassword("keep-1.node-password.rke2", "rke2.cattle.io/node-password"))
                .build();

        assertThat(new MissingNodePasswordDetector().detect(state, AuditSettings.DEFAULTS)).singleElement()
                .satisfies(f -> {
                    assertThat(f.code()).isEqualTo("NG141");
                    assertThat(f.severity()).isEqualTo(Severity.WARNING);
                    assertThat(f.nodes()).containsExactly("gpu-a07");
                    assertThat((List<Object>) f.evidence().get("expectedSecretNames"))
                            .contains("gpu-a07.node-password.rke2");
                });
    }

    @Test
    void untypedSecretCountsAsPresent() {
        var state = cluster()
                .healthy(node("keep-1"))
                .healthy(node("old-agent"))
                .secret(nodePassword("keep-1.node-password.k3s", "k3s.cattle.io/node-password"))
                .secret(nodePassword("old-agent.node-password.k3s", ""))
                .build();
        assertThat(new MissingNodePasswordDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void clusterWithoutNodePasswordSecretsDoesNotFire() {
        var state = cluster().healthy(node("kubeadm-1")).healthy(node("kubeadm-2")).build();
        assertThat(new MissingNodePasswordDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
        assertThat(new OrphanNodePasswordDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }

    @Test
    void lookAlikeSecretsOutsideKubeSystemAreNotNodePasswords() {
        var elsewhere = new io.nodegate.model.SecretMeta("default", "ghost.node-password.rke2", "u1",
                java.time.Instant.parse("2026-04-01T00:00:00Z"), null, java.util.Map.of());
        var state = cluster().healthy(node("keep-1")).secret(elsewhere).build();
        assertThat(new OrphanNodePasswordDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
        // The only "node-password" Secret is not one, so the cluster does not use them: no NG141 either.
        assertThat(new MissingNodePasswordDetector().detect(state, AuditSettings.DEFAULTS)).isEmpty();
    }
}
