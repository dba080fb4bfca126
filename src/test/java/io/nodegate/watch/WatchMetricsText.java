package io.nodegate.watch;

import io.nodegate.audit.AuditReport;
import io.nodegate.model.ClusterState;
import io.nodegate.source.kube.Kinds;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The watch's real /metrics text after one good pass, for tests outside this package (the dashboard's). */
public final class WatchMetricsText {

    private WatchMetricsText() {
    }

    /** Every informer synced, this replica leading, one pass of {@code report} over {@code state}. */
    public static String afterPass(AuditReport report, ClusterState state) {
        Map<String, Boolean> informers = new LinkedHashMap<>();
        Kinds.audited().forEach(k -> informers.put(k.id(), true));
        WatchMetrics metrics = new WatchMetrics("0.1.0", () -> informers, () -> true);
        metrics.passSucceeded(new WatchEngine.Pass(report.now(), true, null, report, state, Duration.ofMillis(20)));
        return metrics.render();
    }
}
