package io.nodegate.source.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import org.junit.jupiter.api.Test;

/**
 * {@link ApiResource} writes out what fabric8 reads from its model classes' annotations, to spare every command the
 * annotation parsing. A wrong plural or group would send a LIST to a path that does not exist, and its 404 would read as
 * "none there": so every written-out row must equal fabric8's own answer, and every kind nodegate reads must be in the table.
 */
class ApiResourceTest {

    @Test
    void everyWrittenOutTypeSaysWhatFabric8Says() {
        assertThat(ApiResource.known()).isNotEmpty();
        ApiResource.known().forEach((type, written) ->
                assertThat(written).as(type.getName()).isEqualTo(ApiResource.fromAnnotations(type)));
    }

    @Test
    void everyKindOfTheReadTableIsWrittenOut() {
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            assertThat(ApiResource.known()).as(kind.id()).containsKey(kind.type());
        }
    }

    @Test
    void aTypeOutsideTheTableIsAskedOfFabric8() {
        assertThat(ApiResource.known()).doesNotContainKeys(Deployment.class, Ingress.class);
        assertThat(ApiResource.of(Deployment.class)).isEqualTo(new ApiResource("Deployment", "apps/v1", "deployments"));
        // "ingresses", not "ingresss": fabric8's pluralizer, not a rule of ours
        assertThat(ApiResource.of(Ingress.class).plural()).isEqualTo("ingresses");
    }

    @Test
    void collectionPathsOfTheCoreAndOfANamedGroup() {
        assertThat(ApiResource.of(Node.class).collectionPath(null)).isEqualTo("/api/v1/nodes");
        assertThat(ApiResource.of(Lease.class).collectionPath("kube-node-lease"))
                .isEqualTo("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases");
        Class<? extends HasMetadata> secret = io.fabric8.kubernetes.api.model.Secret.class;
        assertThat(ApiResource.of(secret).collectionPath("kube-system")).isEqualTo("/api/v1/namespaces/kube-system/secrets");
    }
}
