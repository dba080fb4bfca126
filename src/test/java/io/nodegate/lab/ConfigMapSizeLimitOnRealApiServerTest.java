package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodegate.model.TombstoneShards;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The limit the tombstones ledger's shard budget is kept under, as the real kube-apiserver applies it
 * ({@code ValidateConfigMap} in kubernetes pkg/apis/core/validation/validation.go: the values of data and binaryData
 * together at most {@code MaxSecretSize}, 1 MiB; keys are not counted): a ConfigMap whose values take 1 MiB is
 * stored, one byte more is refused with 422, and nodegate's budget (keys and values) is below it.
 */
@ExtendWith(RealControlPlane.Resolver.class)
class ConfigMapSizeLimitOnRealApiServerTest {

    private static final int MIB = 1024 * 1024;

    @Test
    void valuesOfOneMibAreStoredAndOneByteMoreIsRefused(RealControlPlane lab) {
        assertThat(TombstoneShards.BUDGET).isLessThan(MIB);
        try (KubernetesClient admin = lab.client("admin")) {
            // keys on top of 1 MiB of values: stored, so the limit counts values only
            var atLimit = new ConfigMapBuilder().withNewMetadata().withName("t-size-at-limit").withNamespace("default")
                    .endMetadata().withData(Map.of("a-key-that-is-not-counted", "x".repeat(MIB))).build();
            try {
                admin.configMaps().inNamespace("default").resource(atLimit).create();
                assertThat(admin.configMaps().inNamespace("default").withName("t-size-at-limit").get().getData()
                        .get("a-key-that-is-not-counted")).hasSize(MIB);
            } finally {
                admin.configMaps().inNamespace("default").withName("t-size-at-limit").delete();
            }
            var over = new ConfigMapBuilder().withNewMetadata().withName("t-size-over").withNamespace("default")
                    .endMetadata().withData(Map.of("k", "x".repeat(MIB + 1))).build();
            assertThatThrownBy(() -> admin.configMaps().inNamespace("default").resource(over).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getMessage()).contains("Too long: may not be more than 1048576 bytes");
                    });
            assertThat(admin.configMaps().inNamespace("default").withName("t-size-over").get()).isNull();
        }
    }
}
