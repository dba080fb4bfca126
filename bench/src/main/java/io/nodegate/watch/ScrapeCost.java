package io.nodegate.watch;

import io.nodegate.audit.AuditReport;
import io.nodegate.model.ClusterState;
import io.nodegate.model.LeaseInfo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU of one /metrics render with 5,000 node Leases (bench/RESULTS.md, issue 21): the renewal gauge read from the
 * last pass's list (before) and from a walk of a ConcurrentHashMap of held Leases as WatchCache#nodeLeasesNow does
 * (after). In nodegate's package for its package-private types; run with both jars on the class path:
 * {@code java -cp bench/target/nodegate-bench.jar:target/nodegate.jar io.nodegate.watch.ScrapeCost}
 */
public final class ScrapeCost {
    private ScrapeCost() {
    }

    /** Stands in for the informer's held entry (its model is what the gauge reads). */
    private record Held(Object model) {
    }

    public static void main(String[] a) {
        int n = 5000;
        Instant t0 = Instant.parse("2026-12-01T00:00:00Z");
        List<LeaseInfo> leases = new ArrayList<>();
        Map<String, Object> store = new ConcurrentHashMap<>();
        for (int i = 0; i < n; i++) {
            String name = String.format("worker-%05d", i);
            LeaseInfo l = new LeaseInfo("kube-node-lease", name, "u" + i, t0, name, t0.plusNanos(i * 123_456_000L), 40);
            leases.add(l);
            store.put("kube-node-lease/" + name, new Held(l));
        }
        ClusterState state = ClusterState.builder(t0, "x").nodeLeases(leases).build();
        AuditReport report = new AuditReport(t0, "x", List.of(), List.of(), List.of());
        WatchMetrics fromPass = new WatchMetrics("v", Map::of, Map::of, () -> true, null);
        fromPass.passSucceeded(new WatchEngine.Pass(t0, true, null, report, state, Duration.ofMillis(1)));
        WatchMetrics fromCache = new WatchMetrics("v", Map::of, Map::of, () -> true, each -> {
            // as WatchCache#nodeLeasesNow walks KindWatch's store
            store.forEach((k, h) -> {
                if (((Held) h).model() instanceof LeaseInfo l) {
                    each.accept(l.name(), l);
                } else {
                    each.accept(k.substring(k.indexOf('/') + 1), null);
                }
            });
            return true;
        });
        fromCache.passSucceeded(new WatchEngine.Pass(t0, true, null, report, state, Duration.ofMillis(1)));
        for (int round = 0; round < 3; round++) {
            for (WatchMetrics m : List.of(fromPass, fromCache)) {
                long cpu0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                int len = 0;
                for (int i = 0; i < 2000; i++) {
                    len += m.render().length();
                }
                long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0;
                System.out.printf("%s: %.3f ms CPU per render (%d bytes)%n", m == fromPass ? "from the pass " : "from the cache",
                        cpu / 2000 / 1e6, len / 2000);
            }
        }
    }
}
