package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.testing.Await;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An HA control plane, as the field's "three control-plane nodes" turn out to be: {@code bin/lab up --servers 2}
 * runs a kube-apiserver per server node on one etcd, each with its own hostname, hence its own identity Lease
 * (kube-system/apiserver-&lt;hash&gt;, labelled with the hostname). The Endpoints API refuses loopback
 * addresses, so default/kubernetes stays empty and {@code redundancy} counts the apiservers from their identity
 * Leases. When server 2's apiserver stops, its identity Lease is renewed no more and {@code redundancy} counts one
 * kube-apiserver layer under two etcd-labelled servers (NG210 naming the server without one). Its own lab: the
 * shared one has one server.
 */
class HaControlPlaneOnRealApiServersTest {

    private static final String NAME = "ha";
    private static final String SERVER_1 = NAME + "-server-1";
    private static final String SERVER_2 = NAME + "-server-2";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static RealControlPlane lab;

    @BeforeAll
    static void start() {
        lab = RealControlPlane.start(3, 2, NAME);
    }

    @AfterAll
    static void stop() {
        if (lab != null) {
            lab.close();
        }
    }

    private static CliRun cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--kubeconfig", lab.kubeconfig().toString(), "--context", "admin"));
        CliRun r = CliRun.run(all.toArray(String[]::new));
        System.out.println("$ nodegate " + String.join(" ", args) + "\n-> exit " + r.exitCode() + "\n" + r.all());
        return r;
    }

    /** kube-apiserver's identity Leases by the hostname they are labelled with (what the apiservers write). */
    private static Map<String, Lease> identityLeases(KubernetesClient admin) {
        Map<String, Lease> byHost = new TreeMap<>();
        for (Lease l : admin.leases().inNamespace("kube-system")
                .withLabel("apiserver.kubernetes.io/identity", "kube-apiserver").list().getItems()) {
            byHost.put(l.getMetadata().getLabels().get("kubernetes.io/hostname"), l);
        }
        return byHost;
    }

    /** The addresses of the default/kubernetes EndpointSlice, as the apiservers' endpoint reconciler keeps them. */
    private static TreeSet<String> endpointAddresses(KubernetesClient admin) {
        TreeSet<String> out = new TreeSet<>();
        for (EndpointSlice s : admin.discovery().v1().endpointSlices().inNamespace("default")
                .withLabel("kubernetes.io/service-name", "kubernetes").list().getItems()) {
            s.getEndpoints().forEach(e -> out.addAll(e.getAddresses()));
        }
        return out;
    }

    /** The kube-apiserver row of `redundancy -o json`. */
    private static JsonNode apiserverLayer(CliRun run) {
        for (JsonNode layer : JSON.readTree(run.out()).path("layers")) {
            if ("kube-apiserver".equals(layer.path("role").asString())) {
                return layer;
            }
        }
        throw new AssertionError("no kube-apiserver layer in: " + run.out());
    }

    @Test
    void stoppingOneServersApiserverThinsTheApiLayerThatRedundancyCounts() {
        try (KubernetesClient admin = lab.client("admin")) {
            // each apiserver has its own identity, renewed every 10 s
            Await.until("an identity Lease for each server's kube-apiserver", Duration.ofSeconds(60),
                    () -> identityLeases(admin).keySet().containsAll(List.of(SERVER_1, SERVER_2)));
            assertThat(identityLeases(admin)).hasSize(2);
            assertThat(identityLeases(admin).get(SERVER_1).getMetadata().getName())
                    .isNotEqualTo(identityLeases(admin).get(SERVER_2).getMetadata().getName());
            // the Endpoints API refuses loopback addresses ("may not be in the loopback range"): the apiservers'
            // endpoint reconciler cannot write default/kubernetes on one machine, so the identity Leases are all
            // that says how many apiservers run
            assertThat(endpointAddresses(admin)).isEmpty();

            CliRun both = cli("redundancy", "-o", "json");
            assertThat(both.exitCode()).as(both.all()).isEqualTo(0);
            JsonNode layer = apiserverLayer(both);
            assertThat(layer.path("count").asInt()).as(both.out()).isEqualTo(2);
            assertThat(layer.path("members").toString()).contains(SERVER_1, SERVER_2);
            assertThat(layer.path("basis").asString()).contains("identity Leases");
            assertThat(both.out()).doesNotContain("NG210");

            // server 2's apiserver stops (a failed or disabled apiserver on a server that still votes in etcd)
            lab.lab("server", "stop", "2").requireOk("bin/lab server stop 2");
            ZonedDateTime frozen = renewTime(identityLeases(admin).get(SERVER_2));
            ZonedDateTime before1 = renewTime(identityLeases(admin).get(SERVER_1));
            Await.until("server 1's identity Lease renewed since", Duration.ofSeconds(30),
                    () -> renewTime(identityLeases(admin).get(SERVER_1)).isAfter(before1));
            // the stopped apiserver's identity stays (it is valid for an hour) but nobody renews it
            assertThat(renewTime(identityLeases(admin).get(SERVER_2))).isEqualTo(frozen);

            // once three renewals are missed, redundancy counts one apiserver under two etcd-labelled servers
            Await.until("redundancy counts one kube-apiserver", Duration.ofSeconds(90),
                    () -> apiserverLayer(cli("redundancy", "-o", "json")).path("count").asInt() == 1);
            CliRun one = cli("redundancy", "-o", "json");
            assertThat(one.exitCode()).as(one.all()).isEqualTo(1);
            JsonNode thin = apiserverLayer(one);
            assertThat(thin.path("members").toString()).contains(SERVER_1).doesNotContain(SERVER_2);
            assertThat(renewTime(identityLeases(admin).get(SERVER_2))).isEqualTo(frozen);
            CliRun text = cli("redundancy");
            assertThat(text.out()).containsIgnoringWhitespaces("NG210", "apiserver-layers-below-etcd", SERVER_2,
                    "has not renewed its identity Lease");

            // and back: its Lease renewed again, the layer with it
            lab.lab("server", "start", "2").requireOk("bin/lab server start 2");
            Await.until("server 2's identity Lease renewed again", Duration.ofSeconds(60),
                    () -> renewTime(identityLeases(admin).get(SERVER_2)).isAfter(frozen));
            CliRun again = cli("redundancy", "-o", "json");
            assertThat(apiserverLayer(again).path("count").asInt()).as(again.out()).isEqualTo(2);
        }
    }

    private static ZonedDateTime renewTime(Lease lease) {
        return lease.getSpec().getRenewTime();
    }
}
