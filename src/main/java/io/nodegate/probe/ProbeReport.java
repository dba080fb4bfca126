package io.nodegate.probe;

import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.probe.SlowApiserverDetector;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.model.probe.EndpointResult;
import io.nodegate.model.probe.ProbeSettings;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

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
        List<Finding> all = new ArrayList<>(Detectors.one(SlowApiserverDetector.class).detect(endpoints, settings));
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
}
