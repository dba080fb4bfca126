package io.nodegate.source.etcd;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.EtcdCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed-001 story against real etcd 3.4, in order, on one 3-member cluster (cp-node-a/b/c):
 * healthy, then cp-node-c powered off, then cp-node-c started as its own one-member cluster (split brain),
 * then cp-node-c restarted from its old data dir with --force-new-cluster (same cluster ID, own member list
 * and leader: NG206). Ordered because each step is the next state of the same story and etcd start-up is
 * the slow part.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EtcdLiveScenariosTest {

    /**
     * How long each endpoint may take to answer. A member restarted with --force-new-cluster can need more than
     * two seconds to answer on a loaded 2-core machine (seen in full runs next to other builds); these tests are
     * about what the answers say, not how fast they come, so give them room. A stopped member still fails at
     * once (connection refused), so no test waits this long for it.
     */
    private static final Duration ETCD_ANSWER_TIMEOUT = Duration.ofSeconds(6);

    private EtcdCluster cluster;
    private EtcdCluster separate;

    @BeforeAll
    void startCluster() {
        cluster = EtcdCluster.start(null, "cp-node-a", "cp-node-b", "cp-node-c");
    }

    @AfterAll
    void stopAll() {
        if (separate != null) {
            separate.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void healthyThreeMemberClusterToleratesOneFailure() {
        List<EtcdEndpointReport> reports = read(cluster.clientUrls());
        assertThat(reports).allMatch(EtcdEndpointReport::ok);
        assertThat(reports).extracting(r -> r.status().clusterId()).containsOnly(reports.get(0).status().clusterId());
        assertThat(reports.get(0).members()).extracting(m -> m.name())
                .containsExactlyInAnyOrder("cp-node-a", "cp-node-b", "cp-node-c");
        assertThat(reports).extracting(r -> r.status().version()).allMatch(v -> v.startsWith("3."));

        List<Finding> findings = detect(reports);
        assertThat(codes(findings)).containsExactly("NG202");
        Finding tolerance = findings.get(0);
        assertThat(tolerance.severity()).isEqualTo(Severity.INFO);
        assertThat(tolerance.evidence()).containsEntry("toleratedFailures", 1).containsEntry("quorum", 2);

        List<String> args = new ArrayList<>(List.of("etcd", "-o", "json"));
        cluster.clientUrls().forEach(u -> args.addAll(List.of("--etcd-endpoint", u)));
        CliRun run = CliRun.run(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode doc = JsonMapper.builder().build().readTree(run.out());
        assertThat(doc.path("endpoints").size()).isEqualTo(3);
        assertThat(doc.path("members").size()).isEqualTo(9);
        assertThat(doc.path("endpoints").get(0).path("memberId").asString())
                .isEqualTo(EtcdIds.hex(reports.get(0).status().memberId()));

        // one endpoint plus --etcd-cluster reaches the other two through the member list's client URLs
        List<EtcdEndpointReport> discovered = new EtcdSource(ETCD_ANSWER_TIMEOUT, null)
                .read(List.of(URI.create(cluster.member("cp-node-b").clientUrl())), true);
        assertThat(discovered).hasSize(3).allMatch(EtcdEndpointReport::ok);
        assertThat(discovered).extracting(EtcdEndpointReport::endpoint).containsExactlyInAnyOrderElementsOf(cluster.clientUrls());
    }

    @Test
    @Order(2)
    void oneMemberDownLeavesNoTolerance() {
        cluster.stop("cp-node-c");
        // the scenario is the state after cp-node-a and cp-node-b noticed: one of them leads
        cluster.awaitLeaderAmong("cp-node-a", "cp-node-b");
        List<EtcdEndpointReport> reports = read(cluster.clientUrls());
        assertThat(reports.get(2).ok()).isFalse();
        assertThat(reports.get(2).error()).isNotBlank();

        List<Finding> findings = detect(reports);
        Finding tolerance = only(findings, "NG202");
        assertThat(tolerance.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(tolerance.evidence()).containsEntry("toleratedFailures", 0).containsEntry("answeringVoters", 2);
        assertThat(tolerance.nodes()).containsExactly("cp-node-c");

        Finding unreachable = only(findings, "NG203");
        assertThat(unreachable.nodes()).containsExactly("cp-node-c");
        assertThat(unreachable.evidence()).containsEntry("reason", "endpoint-error")
                .containsEntry("endpoint", cluster.member("cp-node-c").clientUrl());
        assertThat(codes(findings)).doesNotContain("NG201", "NG206");

        CliRun run = CliRun.run("etcd", "--etcd-endpoint", cluster.clientUrls().get(0), "--etcd-endpoint",
                cluster.clientUrls().get(1), "--etcd-endpoint", cluster.clientUrls().get(2));
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("NG202 critical").contains("cp-node-c").contains("NG203");

        CliRun yaml = CliRun.run("etcd", "-o", "yaml", "--etcd-endpoint", cluster.clientUrls().get(2));
        assertThat(yaml.exitCode()).isEqualTo(3);
        assertThat(yaml.out()).contains("endpoints:").contains("error: \"connection refused");
    }

    @Test
    @Order(3)
    void separateClusterUnderTheSameNameIsSplitBrain() {
        // seed 001: cp-node-c, repaired, started without --server: its own one-member cluster, on the same
        // host, so on the client address the original cluster still has registered for cp-node-c
        String cAddress = cluster.member("cp-node-c").clientUrl();
        separate = EtcdCluster.startAt(cluster.member("cp-node-c").clientPort(), "cp-node-c");
        assertThat(separate.member("cp-node-c").clientUrl()).isEqualTo(cAddress);
        List<String> urls = List.of(cluster.member("cp-node-a").clientUrl(), cluster.member("cp-node-b").clientUrl(),
                cAddress);
        List<EtcdEndpointReport> reports = read(urls);
        assertThat(reports).allMatch(EtcdEndpointReport::ok);
        long originalId = reports.get(0).status().clusterId();
        long forkId = reports.get(2).status().clusterId();
        assertThat(forkId).isNotEqualTo(originalId);

        List<Finding> findings = detect(reports);
        Finding split = only(findings, "NG201");
        assertThat(split.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(split.nodes()).containsExactly("cp-node-c");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> sides = (List<Map<String, Object>>) split.evidence().get("sides");
        assertThat(sides).hasSize(2);
        assertThat(sides.get(0)).containsEntry("clusterId", EtcdIds.hex(originalId)).containsEntry("original", true)
                .containsEntry("answeringVoters", "2/3");
        assertThat((List<?>) sides.get(0).get("registeredMembers")).hasSize(3);
        assertThat(sides.get(0).get("endpoints")).isEqualTo(List.of(urls.get(0), urls.get(1)));
        assertThat(sides.get(1)).containsEntry("clusterId", EtcdIds.hex(forkId)).containsEntry("original", false);
        assertThat((List<?>) sides.get(1).get("registeredMembers")).hasSize(1);
        assertThat(sides.get(1).get("leader")).asString().startsWith("[cp-node-c (");
        assertThat(split.message()).contains("Side 1 is the original cluster");

        // the original still counts the old cp-node-c: no tolerance left there; the fork has 1 voter
        assertThat(findings).filteredOn(f -> f.code().equals("NG202")).extracting(Finding::severity)
                .containsExactlyInAnyOrder(Severity.CRITICAL, Severity.WARNING);
        // the old member's address now answers as someone else
        assertThat(only(findings, "NG203").evidence()).containsEntry("reason", "url-answers-as-other-member")
                .containsEntry("endpoint", cAddress);
        assertThat(codes(findings)).doesNotContain("NG206");

        // from the original side alone the fork is invisible ...
        assertThat(codes(detect(read(urls.subList(0, 1))))).doesNotContain("NG201");
        // ... unless the registered members' client URLs are asked too (--etcd-cluster)
        CliRun run = CliRun.run("etcd", "--etcd-endpoint", urls.get(0), "--etcd-cluster", "-o", "json");
        assertThat(run.exitCode()).isEqualTo(1);
        JsonNode doc = JsonMapper.builder().build().readTree(run.out());
        assertThat(doc.path("endpoints").size()).isEqualTo(3);
        assertThat(doc.path("findings").findValuesAsString("code")).contains("NG201");
    }

    @Test
    @Order(4)
    void forcedNewClusterKeepsTheIdButListsOtherMembers() {
        separate.close();
        separate = null;
        // cp-node-c restarted from its old data dir with --force-new-cluster: same cluster ID, only itself
        EtcdCluster.Member fork = cluster.forceNewCluster("cp-node-c");
        List<String> urls = List.of(cluster.member("cp-node-a").clientUrl(), cluster.member("cp-node-b").clientUrl(),
                fork.clientUrl());
        // cp-node-c's departure can cost cp-node-a and cp-node-b (2 of 3) their leader: they elect one again
        // within an election timeout or a few on a loaded machine; the scenario is the state after that
        cluster.awaitLeaderAmong("cp-node-a", "cp-node-b");
        List<EtcdEndpointReport> reports = read(urls);
        assertThat(reports).allMatch(EtcdEndpointReport::ok);
        assertThat(reports).extracting(r -> r.status().clusterId()).containsOnly(reports.get(0).status().clusterId());
        assertThat(reports.get(2).members()).extracting(m -> m.name()).containsExactly("cp-node-c");

        List<Finding> findings = detect(reports);
        assertThat(codes(findings)).doesNotContain("NG201");
        Finding disagree = only(findings, "NG206");
        assertThat(disagree.evidence()).containsEntry("differentLeaders", true);
        assertThat(disagree.severity()).isEqualTo(Severity.CRITICAL);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> views = (List<Map<String, Object>>) disagree.evidence().get("views");
        assertThat(views).hasSize(2);
        assertThat(views.get(0).get("endpoints")).isEqualTo(urls.subList(0, 2));
        assertThat((List<String>) views.get(0).get("missing")).isEmpty();
        assertThat(views.get(1).get("endpoints")).isEqualTo(List.of(fork.clientUrl()));
        assertThat((List<String>) views.get(1).get("missing")).hasSize(2)
                .anyMatch(m -> m.startsWith("cp-node-a (")).anyMatch(m -> m.startsWith("cp-node-b ("));
    }

    private static List<EtcdEndpointReport> read(List<String> urls) {
        return new EtcdSource(ETCD_ANSWER_TIMEOUT, null).read(urls.stream().map(URI::create).toList());
    }

    static List<Finding> detect(List<EtcdEndpointReport> reports) {
        ClusterState state = ClusterState.builder(Instant.now(), "test").etcd(reports).build();
        List<Finding> out = new ArrayList<>();
        Detectors.in(Scope.ETCD, Detector.class).forEach(d -> out.addAll(d.detect(state, AuditSettings.DEFAULTS)));
        return out;
    }

    static List<String> codes(List<Finding> findings) {
        return findings.stream().map(Finding::code).toList();
    }

    static Finding only(List<Finding> findings, String code) {
        List<Finding> matching = findings.stream().filter(f -> f.code().equals(code)).toList();
        assertThat(matching).as(code + " in " + findings).hasSize(1);
        return matching.get(0);
    }

}
