package io.nodegate.probe;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.probe.LeaderElectionLostDetector;
import io.nodegate.detect.probe.SlowApiserverDetector;
import io.nodegate.model.ClusterState;
import io.nodegate.model.Collected;
import io.nodegate.model.PodInfo;
import io.nodegate.model.probe.ApiserverTarget;
import io.nodegate.model.probe.EndpointResult;
import io.nodegate.model.probe.Latencies;
import io.nodegate.model.probe.ProbeSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProbeLogicTest {

    private static final ProbeSettings DEFAULTS = new ProbeSettings(20, Duration.ofSeconds(10), 0.2, "kube-system",
            "nodegate-probe-test");

    @Test
    void nearestRankPercentilesOfTwentySamples() {
        List<Duration> samples = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            samples.add(Duration.ofMillis(i * 10L));
        }
        java.util.Collections.shuffle(samples, new java.util.Random(7));
        Latencies l = Latencies.of(samples);
        assertThat(l.count()).isEqualTo(20);
        assertThat(l.p50()).isEqualTo(Duration.ofMillis(100)); // rank ceil(10) = 10th
        assertThat(l.p99()).isEqualTo(Duration.ofMillis(200)); // rank ceil(19.8) = 20th
        assertThat(l.max()).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void p99OfTwoHundredSamplesIgnoresTheSingleWorst() {
        List<Duration> samples = new ArrayList<>();
        for (int i = 0; i < 199; i++) {
            samples.add(Duration.ofMillis(20));
        }
        samples.add(Duration.ofSeconds(3));
        Latencies l = Latencies.of(samples);
        assertThat(l.p99()).isEqualTo(Duration.ofMillis(20)); // rank 198 of 200
        assertThat(l.max()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void eachAddressTakesThePortOfItsOwnSliceAndNotReadyIsSkipped() {
        EndpointSlice main = slice("kubernetes", 6443, "https", "10.0.0.2", "10.0.0.1");
        EndpointSlice other = slice("kubernetes-extra", 7443, "https", "10.0.0.3");
        EndpointSlice notReady = new EndpointSliceBuilder(slice("kubernetes-nr", 6443, "https", "10.0.0.9"))
                .editFirstEndpoint().withNewConditions().withReady(false).endConditions().endEndpoint().build();
        EndpointSlice twoPorts = new EndpointSliceBuilder(slice("kubernetes-two", 80, "http", "10.0.0.4"))
                .addNewPort().withName("https").withPort(8443).endPort().build();
        assertThat(ApiserverTargets.fromSlices(List.of(main, other, notReady, twoPorts))).containsExactly(
                new ApiserverTarget("10.0.0.1", 6443), new ApiserverTarget("10.0.0.2", 6443),
                new ApiserverTarget("10.0.0.3", 7443), new ApiserverTarget("10.0.0.4", 8443));
        assertThat(new ApiserverTarget("fd00::1", 6443).url("https")).isEqualTo("https://[fd00::1]:6443");
    }

    @Test
    void slowOnlyAboveTheThresholdAndErrorsAreNotJudged() {
        // threshold 2 s: exactly 2 s is not beyond it, 2.21 s (seed 003) is
        EndpointResult ilwon = result("10.0.0.2", 25, 25, 25);
        EndpointResult lemuel = result("10.0.0.1", 84, 84, 2000);
        EndpointResult solomon = result("10.0.0.3", 30, 2210, 40);
        EndpointResult broken = new EndpointResult(new ApiserverTarget("10.0.0.4", 6443), "https://10.0.0.4:6443",
                List.of(Duration.ofSeconds(9)), "renewal 2/20: 500", "deleted", null, false);
        List<Finding> findings = new SlowApiserverDetector().detect(List.of(ilwon, lemuel, solomon, broken), DEFAULTS);
        assertThat(findings).singleElement().satisfies(f -> {
            assertThat(f.code()).isEqualTo("NG213");
            assertThat(f.nodes()).containsExactly("10.0.0.3:6443");
            assertThat(f.message()).contains("p99 2.21s").contains("beyond 2s");
            assertThat(f.evidence()).containsEntry("p99Seconds", 2.21).containsEntry("thresholdSeconds", 2.0);
        });
    }

    @Test
    void leaderElectionLostIsMatchedCaseInsensitivelyAndNothingElse() {
        PodInfo sops = pod("sops", "sops-operator-7d9", "ilwon",
                "{\"level\":\"error\",\"msg\":\"problem running manager\",\"error\":\"leader election lost\"}");
        PodInfo elastic = pod("elastic-system", "elastic-operator-0", "david", "E0815 Leader Election Lost\n");
        PodInfo nearMiss = pod("app", "web-1", "david", "leader election: lost connection to the API server");
        PodInfo clean = pod("app", "web-2", "david", null);
        ClusterState state = ClusterState.builder(Instant.EPOCH, "test")
                .pods(Collected.of(List.of(sops, elastic, nearMiss, clean))).build();
        List<Finding> findings = new LeaderElectionLostDetector().detect(state, AuditSettings.DEFAULTS);
        assertThat(findings).extracting(f -> f.evidence().get("pod"))
                .containsExactly("sops/sops-operator-7d9", "elastic-system/elastic-operator-0");
        assertThat(findings).allSatisfy(f -> assertThat(f.severity().label()).isEqualTo("info"));
        assertThat(findings.get(0).nodes()).containsExactly("ilwon");
    }

    @Test
    void thresholdIsTheFractionOfTheDeadline() {
        assertThat(DEFAULTS.threshold()).isEqualTo(Duration.ofSeconds(2));
        assertThat(new ProbeSettings(1, Duration.ofSeconds(1), 0.25, "ns", "n").threshold())
                .isEqualTo(Duration.ofMillis(250));
        assertThat(Latencies.ms(Duration.ofMillis(2210))).isEqualTo("2.21s");
        assertThat(Latencies.ms(Duration.ofMillis(84))).isEqualTo("84ms");
        assertThat(Latencies.ms(Duration.ofNanos(2_500_000))).isEqualTo("2.5ms");
    }

    private static EndpointResult result(String address, long... millis) {
        List<Duration> d = new ArrayList<>();
        for (long m : millis) {
            d.add(Duration.ofMillis(m));
        }
        return new EndpointResult(new ApiserverTarget(address, 6443), "https://" + address + ":6443", d, null,
                "deleted", null, false);
    }

    private static PodInfo pod(String ns, String name, String node, String message) {
        return new PodInfo(ns, name, "uid-" + name, node, "Running", "ReplicaSet", message);
    }

    static EndpointSlice slice(String name, int port, String portName, String... addresses) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName(name).withNamespace("default")
                .addToLabels("kubernetes.io/service-name", "kubernetes").endMetadata()
                .withAddressType("IPv4")
                .addNewPort().withName(portName).withPort(port).withProtocol("TCP").endPort();
        for (String a : addresses) {
            b.addNewEndpoint().withAddresses(a).withNewConditions().withReady(true).endConditions().endEndpoint();
        }
        return b.build();
    }
}
