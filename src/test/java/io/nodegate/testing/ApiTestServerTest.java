package io.nodegate.testing;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiTestServerTest {

    private ApiTestServer api;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        api = ApiTestServer.start();
        client = api.newClient();
    }

    @AfterEach
    void stop() {
        client.close();
        api.close();
    }

    private static Pod pod(String ns, String name, String node) {
        return new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).addToLabels("app", name.substring(0, 1))
                .endMetadata().withNewSpec().withNodeName(node).endSpec().build();
    }

    @Test
    void pagesListsWithLimitAndContinue() {
        for (int i = 0; i < 7; i++) {
            api.create(new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata().build());
        }
        List<String> names = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            var page = client.nodes().list(new ListOptionsBuilder().withLimit(3L).withContinue(token).build());
            page.getItems().forEach(n -> names.add(n.getMetadata().getName()));
            token = page.getMetadata().getContinue();
            pages++;
            if (token != null && token.isEmpty()) {
                token = null;
            }
        } while (token != null);
        assertThat(pages).isEqualTo(3);
        assertThat(names).containsExactly("n0", "n1", "n2", "n3", "n4", "n5", "n6");
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(3);
        // setup requests are not counted
        api.client().nodes().list();
        assertThat(api.requests("GET", "/api/v1/nodes")).isEqualTo(3);
    }

    @Test
    void honoursNodeNameFieldSelectorAndSetBasedLabels() {
        api.create(pod("a", "x1", "w1"), pod("b", "y2", "w2"), pod("a", "x3", "w1"));
        PodList onW1 = client.pods().inAnyNamespace().withField("spec.nodeName", "w1").list();
        assertThat(onW1.getItems()).extracting(p -> p.getMetadata().getName()).containsExactly("x1", "x3");
        PodList notX = client.pods().inAnyNamespace().withLabelNotIn("app", "x").list();
        assertThat(notX.getItems()).extracting(p -> p.getMetadata().getName()).containsExactly("y2");
        assertThatThrownBy(() -> client.nodes().withField("spec.nodeName", "w1").list())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("field label not supported");
    }

    @Test
    void missingNamespaceIsNotFoundAndInjectedFailuresAnswer() {
        assertThat(client.namespaces().withName("cattle-system").get()).isNull();
        api.failOn("GET", "/api/v1/nodes", 403);
        assertThatThrownBy(() -> client.nodes().list())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
        api.unserve("/apis/storage.k8s.io/v1/csinodes");
        assertThatThrownBy(() -> client.storage().v1().csiNodes().list())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));
        assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.34.1+rke2r1");
    }

    @Test
    void keepsStatusGivenAtCreate() {
        api.create(new NodeBuilder().withNewMetadata().withName("s").endMetadata().withNewStatus()
                .addNewCondition().withType("Ready").withStatus("Unknown").endCondition().endStatus().build());
        assertThat(client.nodes().withName("s").get().getStatus().getConditions().get(0).getStatus())
                .isEqualTo("Unknown");
    }
}
