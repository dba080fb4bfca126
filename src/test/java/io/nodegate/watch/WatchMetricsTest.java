package io.nodegate.watch;

import io.nodegate.watch.publishing.FindingEvents;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The pieces of the watch that need no cluster: Event wording, the metrics text, the command line. */
class WatchMetricsTest {

    private static Finding finding(String name, Severity severity) {
        return new Finding("NG110", name, severity, List.of("w1", "w1-new"), "Nodes w1 and w1-new report one host.",
                Map.of(), "hint");
    }

    @Test
    void eventsSayTheFindingNameInCamelCaseAndStartWithTheCode() {
        Finding f = finding("same-host-two-names", Severity.WARNING);
        assertThat(FindingEvents.reason(f)).isEqualTo("SameHostTwoNames");
        assertThat(FindingEvents.type(f)).isEqualTo("Warning");
        assertThat(FindingEvents.type(finding("orphan-node-password", Severity.INFO))).isEqualTo("Normal");
        assertThat(FindingEvents.type(finding("etcd-split-brain", Severity.CRITICAL))).isEqualTo("Warning");
        assertThat(FindingEvents.message(f)).startsWith("NG110 Nodes w1 and w1-new");
        assertThat(FindingEvents.resolvedMessage(f)).startsWith("NG110 SameHostTwoNames resolved: no longer found on "
                + "w1, w1-new");
        String longMessage = FindingEvents.message(new Finding("NG110", "x", Severity.INFO, List.of("n"),
                "m".repeat(5000), Map.of(), "h"));
        assertThat(longMessage).hasSize(FindingEvents.MAX_MESSAGE);
    }

    @Test
    void beforeAnyPassOnlyTheLoopsOwnSeriesAreThereAndTheHistogramCounts() {
        WatchMetrics m = new WatchMetrics("1.2.3", () -> new java.util.LinkedHashMap<>(Map.of("nodes", false)),
                () -> false);
        m.passFailed(Duration.ofMillis(30));
        m.passFailed(Duration.ofMillis(300));
        String text = m.render();
        assertThat(text).contains("nodegate_informer_synced{kind=\"nodes\"} 0\n", "nodegate_leader 0\n",
                "nodegate_evaluations_total 2\n", "nodegate_evaluation_errors_total 2\n",
                "nodegate_build_info{version=\"1.2.3\"} 1\n",
                "nodegate_evaluation_duration_seconds_bucket{le=\"0.025\"} 0\n",
                "nodegate_evaluation_duration_seconds_bucket{le=\"0.05\"} 1\n",
                "nodegate_evaluation_duration_seconds_bucket{le=\"0.5\"} 2\n",
                "nodegate_evaluation_duration_seconds_bucket{le=\"+Inf\"} 2\n",
                "nodegate_evaluation_duration_seconds_count 2\n",
                "# TYPE nodegate_evaluation_duration_seconds histogram\n");
        assertThat(text).doesNotContain("nodegate_finding{");
        // every sample line is NAME{labels} VALUE or NAME VALUE
        assertThat(text.lines().filter(l -> !l.startsWith("#")))
                .allMatch(l -> l.matches("[a-z_]+(\\{[^}]*\\})? [0-9.e+-]+"));
    }

    @Test
    void labelValuesAreEscapedAsTheTextFormatRequires() {
        assertThat(WatchMetrics.escape("a\"b\\c\nd")).isEqualTo("a\\\"b\\\\c\\nd");
    }

    @Test
    void helpTeachesAndBadFlagsAreUsageErrors() {
        CliRun help = CliRun.run("watch", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("--once", "--listen", "--interval", "/readyz", "Examples:");
        CliRun badListen = CliRun.run("watch", "--listen", "9470", "--kubeconfig", "/nonexistent");
        assertThat(badListen.exitCode()).isEqualTo(2);
        assertThat(badListen.err()).contains("--listen '9470'");
        CliRun badSkip = CliRun.run("watch", "--once", "--skip", "NG999");
        assertThat(badSkip.exitCode()).isEqualTo(2);
        assertThat(badSkip.err()).contains("unknown code 'NG999'");
        CliRun noKubeconfig = CliRun.run("watch", "--once", "--kubeconfig", "/nonexistent/kubeconfig");
        assertThat(noKubeconfig.exitCode()).isEqualTo(2);
        assertThat(noKubeconfig.err()).contains("/nonexistent/kubeconfig");
    }

    /**
     * A code the watch checks reads 0 at each severity it can have when nothing is found (so a dashboard tells
     * "checked, none" from "not checked"), the count when something is; a code not checked has no series.
     */
    @Test
    void checkedCodesStartAtZeroPerSeverityFromTheRegistry() {
        WatchMetrics m = new WatchMetrics("1.2.3", Map::of, () -> true);
        m.checking(List.of("NG101", "NG302"));
        java.time.Instant now = java.time.Instant.parse("2026-01-01T00:00:00Z");
        io.nodegate.model.ClusterState state = io.nodegate.model.ClusterState.builder(now, "test").build();
        Finding returned = new Finding("NG302", "removed-host-returned", Severity.CRITICAL, List.of("w1"), "m",
                Map.of(), "h");
        m.passSucceeded(new WatchEngine.Pass(now, true, null, new io.nodegate.audit.AuditReport(now, "test",
                List.of(), List.of(returned), List.of()), state, Duration.ofMillis(5)));
        String text = m.render();
        assertThat(text).contains("nodegate_findings{code=\"NG101\",severity=\"warning\"} 0\n",
                "nodegate_findings{code=\"NG302\",severity=\"info\"} 0\n",
                "nodegate_findings{code=\"NG302\",severity=\"warning\"} 0\n",
                "nodegate_findings{code=\"NG302\",severity=\"critical\"} 1\n");
        assertThat(text).doesNotContain("nodegate_findings{code=\"NG101\",severity=\"critical\"}",
                "nodegate_findings{code=\"NG110\"");
    }

    /**
     * The renewal gauge reads the Leases it is given at each scrape, not the last pass. A Lease whose latest version
     * could not be mapped (null model) shows the last good pass's renewTime: the value last seen, never one made up;
     * without such a pass it has no series. Before any Lease was seen there is no series and no header.
     */
    @Test
    void theRenewalGaugeReadsTheLeasesAtScrapeTimeAndFallsBackOnlyToWhatWasSeen() {
        java.time.Instant t0 = java.time.Instant.parse("2026-01-01T00:00:00Z");
        java.util.Map<String, io.nodegate.model.LeaseInfo> held = new java.util.LinkedHashMap<>();
        boolean[] listed = {false};
        WatchMetrics m = new WatchMetrics("1.2.3", Map::of, Map::of, () -> true, each -> {
            if (!listed[0]) {
                return false;
            }
            held.forEach(each);
            return true;
        });
        assertThat(m.render()).doesNotContain("nodegate_node_lease_renew_timestamp_seconds");

        listed[0] = true;
        held.put("w1", lease("w1", t0.plusMillis(10_250)));
        held.put("w2", null);
        assertThat(m.render()).contains("# TYPE nodegate_node_lease_renew_timestamp_seconds gauge\n",
                "nodegate_node_lease_renew_timestamp_seconds{node=\"w1\"} 1.76722561025E9\n")
                .doesNotContain("node=\"w2\"");

        io.nodegate.model.ClusterState state = io.nodegate.model.ClusterState.builder(t0, "test")
                .nodeLeases(List.of(lease("w2", t0.plusSeconds(3)))).build();
        m.passSucceeded(new WatchEngine.Pass(t0, true, null, new io.nodegate.audit.AuditReport(t0, "test",
                List.of(), List.of(), List.of()), state, Duration.ofMillis(5)));
        held.put("w1", lease("w1", t0.plusSeconds(20)));
        assertThat(m.render()).contains("nodegate_node_lease_renew_timestamp_seconds{node=\"w1\"} 1767225620\n",
                "nodegate_node_lease_renew_timestamp_seconds{node=\"w2\"} 1767225603\n");
    }

    private static io.nodegate.model.LeaseInfo lease(String name, java.time.Instant renew) {
        return new io.nodegate.model.LeaseInfo("kube-node-lease", name, "uid-" + name, renew, name, renew, 40);
    }
}
