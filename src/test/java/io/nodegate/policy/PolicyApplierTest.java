package io.nodegate.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.nodegate.CollectionException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mock's CRUD mode does not create objects on a server-side-apply PATCH (a real API server does), so this
 * test answers each apply PATCH itself and checks what went over the wire.
 */
@EnableKubernetesMockClient
class PolicyApplierTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static String path(HasMetadata o) {
        String apiVersion = o.getApiVersion();
        String base = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
        String ns = o.getMetadata().getNamespace();
        String plural = HasMetadata.getPlural(o.getClass());
        return base + (ns == null ? "" : "/namespaces/" + ns) + "/" + plural + "/" + o.getMetadata().getName();
    }

    private void answerApplies(PolicyBundle bundle) {
        for (HasMetadata o : bundle.objects()) {
            server.expect().patch().withPath(path(o) + "?fieldManager=nodegate&force=true").andReturn(200, o).once();
        }
    }

    private List<RecordedRequest> patches() throws InterruptedException {
        List<RecordedRequest> out = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
            if (r.getMethod().equals("PATCH")) {
                out.add(r);
            }
        }
        return out;
    }

    @Test
    void serverSideAppliesEachObjectAndSkipsCattleSystemWhenRancherIsAbsent() throws Exception {
        PolicyBundle bundle = PolicyBundle.of(PolicySettings.defaults());
        server.expect().get().withPath("/api/v1/namespaces/cattle-system").andReturn(404, "").once();
        answerApplies(bundle);

        PolicyApplier.Result result = PolicyApplier.apply(client, bundle);

        assertThat(result.skipped()).hasSize(2).allMatch(s -> s.contains("-n cattle-system (namespace cattle-system"
                + " not found"));
        // 15: the gate policy and binding, the hand-over cordon policy and binding, ClusterRole and binding, three namespaces' Roles and bindings, and the
        // tombstones namespace (nodegate-system) with its Role and binding; cattle-system's two are skipped
        assertThat(result.applied()).hasSize(15).first().isEqualTo("ValidatingAdmissionPolicy/nodegate-node-gate");
        List<RecordedRequest> patches = patches();
        assertThat(patches).hasSize(15).allSatisfy(p -> {
            assertThat(p.getHeader("Content-Type")).startsWith("application/apply-patch+yaml");
            assertThat(p.getPath()).endsWith("?fieldManager=nodegate&force=true").doesNotContain("cattle-system");
        });
        assertThat(patches.get(0).getPath()).startsWith(
                "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/nodegate-node-gate");
        assertThat(patches.get(0).getBody().readUtf8()).contains("request.operation != 'DELETE'");
    }

    @Test
    void appliesCattleSystemRoleWhenTheNamespaceExists() throws Exception {
        PolicyBundle bundle = PolicyBundle.of(PolicySettings.defaults());
        server.expect().get().withPath("/api/v1/namespaces/cattle-system")
                .andReturn(200, new NamespaceBuilder().withNewMetadata().withName("cattle-system").withUid("uid-cattle-system").endMetadata()
                        .build()).once();
        answerApplies(bundle);

        PolicyApplier.Result result = PolicyApplier.apply(client, bundle);

        assertThat(result.skipped()).isEmpty();
        assertThat(result.applied()).hasSize(17).contains("Role/nodegate-operator -n cattle-system");
        assertThat(patches()).hasSize(17);
    }

    @Test
    void aFailedNamespaceLookupIsAnErrorNotAbsenceAndNothingIsApplied() throws Exception {
        server.expect().get().withPath("/api/v1/namespaces/cattle-system").andReturn(403, "forbidden").always();

        assertThatThrownBy(() -> PolicyApplier.apply(client, PolicyBundle.of(PolicySettings.defaults())))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("cannot tell whether namespace cattle-system exists: GET namespace cattle-system: 403 Forbidden");
        assertThat(patches()).isEmpty();
    }

    @Test
    void withoutRancherTheNamespaceIsNotAskedFor() throws Exception {
        PolicyBundle bundle = PolicyBundle.of(new PolicySettings(PolicySettings.DEFAULT_OPERATORS_GROUP,
                PolicySettings.DEFAULT_BREAK_GLASS_GROUP, false, List.of()));
        // were the namespace looked up, this answer would abort the apply
        server.expect().get().withPath("/api/v1/namespaces/cattle-system").andReturn(403, "forbidden").always();
        answerApplies(bundle);

        PolicyApplier.Result result = PolicyApplier.apply(client, bundle);

        assertThat(result.applied()).hasSize(15);
        assertThat(result.skipped()).isEmpty();
        assertThat(patches()).hasSize(15);
    }

    @Test
    void aKindTheServerDoesNotServeIsNamedWithTheResourceNotHttpMinusOne() {
        PolicyBundle bundle = PolicyBundle.of(PolicySettings.defaults());
        server.expect().get().withPath("/api/v1/namespaces/cattle-system").andReturn(404, "").once();
        HasMetadata policy = bundle.objects().get(0);
        server.expect().patch().withPath(path(policy) + "?fieldManager=nodegate&force=true")
                .andReturn(404, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                        + "\"message\":\"the server could not find the requested resource\",\"reason\":\"NotFound\",\"code\":404}")
                .once();
        assertThatThrownBy(() -> PolicyApplier.apply(client, bundle))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("the API server does not serve admissionregistration.k8s.io/v1 validatingadmissionpolicies")
                .hasMessageContaining("1.30")
                .hasMessageNotContaining("-1");
    }

    @Test
    void aRejectedApplyStopsAndSaysWhatWasAppliedBefore() {
        PolicyBundle bundle = PolicyBundle.of(PolicySettings.defaults());
        server.expect().get().withPath("/api/v1/namespaces/cattle-system").andReturn(404, "").once();
        HasMetadata policy = bundle.objects().get(0);
        server.expect().patch().withPath(path(policy) + "?fieldManager=nodegate&force=true").andReturn(200, policy)
                .once();
        HasMetadata binding = bundle.objects().get(1);
        server.expect().patch().withPath(path(binding) + "?fieldManager=nodegate&force=true")
                .andReturn(403, "forbidden").once();

        assertThatThrownBy(() -> PolicyApplier.apply(client, bundle))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("applying ValidatingAdmissionPolicyBinding/nodegate-node-gate failed: HTTP 403")
                .hasMessageContaining("applied before it: [ValidatingAdmissionPolicy/nodegate-node-gate]");
    }
}
