package io.nodegate.probe;

import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The result of `nodegate probe apiservers`: latencies per apiserver, findings, notes. */
public record ProbeReport(String source, ProbeSettings settings, List<EndpointResult> endpoints,
                          List<Finding> findings, List<String> notes) {

    public ProbeReport {
        endpoints = List.copyOf(endpoints);
        List<Finding> sorted = new ArrayList<>(findings);
        sorted.sort(Comparator.comparing(Finding::severity).reversed().thenComparing(Finding::code));
        findings = List.copyOf(sorted);
        notes = List.copyOf(notes);
    }

    public static ProbeReport of(String source, ProbeSettings settings, List<EndpointResult> endpoints,
                                 List<Finding> podFindings, List<String> notes) {
        List<Finding> all = new ArrayList<>(SlowApiserverCheck.check(endpoints, settings));
        all.addAll(podFindings);
        return new ProbeReport(source, settings, endpoints, all, notes);
    }

    public boolean hasWarningOrWorse() {
        return findings.stream().anyMatch(f -> f.severity().atLeast(Severity.WARNING));
    }

    public List<EndpointResult> unmeasured() {
        return endpoints.stream().filter(e -> !e.measured()).toList();
    }

    public boolean cleanupFailed() {
        return endpoints.stream().anyMatch(EndpointResult::cleanupFailed);
    }

    /** Latency for people: "84ms", "2.21s", "2s" (finer than {@link io.nodegate.time.Durations#format}, which is for ages). */
    public static String ms(Duration d) {
        long micros = d.toNanos() / 1_000;
        if (micros >= 1_000_000 && micros % 1_000_000 == 0) {
            return micros / 1_000_000 + "s";
        }
        if (micros < 10_000) {
            return String.format(Locale.ROOT, "%.1fms", micros / 1000.0);
        }
        if (micros < 1_000_000) {
            return (micros / 1000) + "ms";
        }
        return String.format(Locale.ROOT, "%.2fs", micros / 1_000_000.0);
    }
}
