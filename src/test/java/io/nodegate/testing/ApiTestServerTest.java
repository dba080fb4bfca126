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

    /** GET with an Accept header, over plain HTTP: status and body. */
    private String[] get(String pathAndQuery, String accept) throws Exception {
        var c = (java.net.HttpURLConnection) java.net.URI.create(api.url() + pathAndQuery).toURL().openConnection();
        if (accept != null) {
            c.setRequestProperty("Accept", accept);
        }
        int code = c.getResponseCode();
        var in = code >= 400 ? c.getErrorStream() : c.getInputStream();
        return new String[]{Integer.toString(code), in == null ? "" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
                String.valueOf(c.getHeaderField("Content-Type"))};
    }

    /** kube-apiserver's content negotiation, which nodegate's metadata-only Secret reads rely on. */
    @Test
    void answersTablesAndMetadataOnlyWhenAskedAndWholeObjectsOtherwise() throws Exception {
        api.create(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata().withNamespace("kube-system")
                .withName("s1").endMetadata().withType("k3s.cattle.io/node-password").addToData("hash", "c2VjcmV0LXZhbHVl")
                .build());
        String list = "/api/v1/namespaces/kube-system/secrets";
        String[] whole = get(list, null);
        assertThat(whole[0]).isEqualTo("200");
        assertThat(whole[1]).contains("c2VjcmV0LXZhbHVl");

        String[] table = get(list + "?limit=10", "application/json;as=Table;g=meta.k8s.io;v=v1,application/json");
        assertThat(table[0]).isEqualTo("200");
        assertThat(table[2]).contains("as=Table");
        assertThat(table[1]).contains("\"kind\":\"Table\"", "\"name\":\"Type\"", "k3s.cattle.io/node-password",
                "\"kind\":\"PartialObjectMetadata\"").doesNotContain("c2VjcmV0LXZhbHVl");
        assertThat(get(list + "?includeObject=None", "application/json;as=Table;g=meta.k8s.io;v=v1")[1])
                .contains("\"object\":null");

        String[] partialList = get(list, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
        assertThat(partialList[1]).contains("PartialObjectMetadataList", "\"name\":\"s1\"")
                .doesNotContain("c2VjcmV0LXZhbHVl").doesNotContain("node-password\"");
        // a PartialObjectMetadata (one object) cannot answer a LIST: with no other range acceptable, 406
        assertThat(get(list, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")[0]).isEqualTo("406");
        // ... and with a fallback range, the fallback is served
        assertThat(get(list, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")[1])
                .contains("c2VjcmV0LXZhbHVl");

        String[] one = get(list + "/s1", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
        assertThat(one[0]).isEqualTo("200");
        assertThat(one[1]).contains("\"kind\":\"PartialObjectMetadata\"", "\"name\":\"s1\"")
                .doesNotContain("c2VjcmV0LXZhbHVl");
        assertThat(get(list + "/s1", "application/json;as=Table;g=meta.k8s.io;v=v1")[1]).contains("\"rows\":[{")
                .contains("k3s.cattle.io/node-password").doesNotContain("c2VjcmV0LXZhbHVl");
        assertThat(get(list + "/nope", "application/json;as=Table;g=meta.k8s.io;v=v1")[0]).isEqualTo("404");
    }
}
