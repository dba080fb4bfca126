package io.nodegate.probe;

import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.render.FindingsSection;
import io.nodegate.render.Structured;
import io.nodegate.render.Style;
import io.nodegate.render.TextTable;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

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

    public String table(Style style) {
        StringBuilder out = new StringBuilder();
        out.append("Source: ").append(source).append('\n');
        out.append("Probe Lease ").append(settings.namespace()).append('/').append(settings.leaseName())
                .append(": ").append(settings.renewals()).append(" renewals (PUT) per apiserver, slow above ")
                .append(ms(settings.threshold())).append(" = ").append(settings.thresholdFraction())
                .append(" × renew deadline ").append(ms(settings.renewDeadline())).append("\n\n");
        TextTable t = new TextTable("APISERVER", "RENEWALS", "P50", "P99", "MAX", "RESULT", "PROBE LEASE");
        List<String> slow = findings.stream().filter(f -> SlowApiserverCheck.CODE.equals(f.code()))
                .flatMap(f -> f.nodes().stream()).toList();
        for (EndpointResult e : endpoints) {
            Latencies l = e.latencies();
            String result = e.error() != null ? "ERROR" : slow.contains(e.target().hostPort()) ? "SLOW" : "ok";
            List<java.util.function.UnaryOperator<String>> styles = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                styles.add(null);
            }
            if (!"ok".equals(result)) {
                styles.set(5, s -> style.severity(Severity.WARNING, s));
            }
            t.styledRow(List.of(e.target().hostPort(), l == null ? e.renewals().size() + "/" + settings.renewals()
                            : String.valueOf(l.count()),
                    l == null ? "-" : ms(l.p50()), l == null ? "-" : ms(l.p99()), l == null ? "-" : ms(l.max()),
                    result, e.cleanup()), styles);
        }
        out.append(t.render(style));
        List<EndpointResult> failed = endpoints.stream().filter(e -> e.error() != null || e.cleanupError() != null)
                .toList();
        if (!failed.isEmpty()) {
            out.append('\n').append(style.bold("ERRORS")).append('\n');
            for (EndpointResult e : failed) {
                if (e.error() != null) {
                    out.append("  ").append(e.target().hostPort()).append(": ").append(e.error()).append('\n');
                }
                if (e.cleanupError() != null) {
                    out.append("  ").append(e.target().hostPort()).append(": probe Lease ").append(e.cleanup())
                            .append(": ").append(e.cleanupError()).append('\n');
                }
            }
        }
        out.append('\n').append(FindingsSection.render(findings, style));
        String n = FindingsSection.notes(notes, style);
        if (!n.isEmpty()) {
            out.append('\n').append(n);
        }
        return out.toString();
    }

    public ObjectNode tree() {
        ObjectNode root = Structured.object();
        root.put("source", source);
        ObjectNode probe = root.putObject("probe");
        probe.put("leaseNamespace", settings.namespace());
        probe.put("leaseName", settings.leaseName());
        probe.put("renewals", settings.renewals());
        probe.put("renewDeadlineSeconds", SlowApiserverCheck.seconds(settings.renewDeadline()));
        probe.put("thresholdFraction", settings.thresholdFraction());
        probe.put("thresholdSeconds", SlowApiserverCheck.seconds(settings.threshold()));
        ArrayNode eps = root.putArray("apiservers");
        for (EndpointResult e : endpoints) {
            ObjectNode o = eps.addObject();
            o.put("address", e.target().address());
            o.put("port", e.target().port());
            o.put("url", e.url());
            o.put("measured", e.measured());
            o.put("renewals", e.renewals().size());
            Latencies l = e.latencies();
            if (l == null) {
                o.putNull("p50Seconds");
                o.putNull("p99Seconds");
                o.putNull("maxSeconds");
            } else {
                o.put("p50Seconds", SlowApiserverCheck.seconds(l.p50()));
                o.put("p99Seconds", SlowApiserverCheck.seconds(l.p99()));
                o.put("maxSeconds", SlowApiserverCheck.seconds(l.max()));
            }
            if (e.error() == null) {
                o.putNull("error");
            } else {
                o.put("error", e.error());
            }
            o.put("leaseCleanup", e.cleanup());
            if (e.cleanupError() == null) {
                o.putNull("leaseCleanupError");
            } else {
                o.put("leaseCleanupError", e.cleanupError());
            }
            o.put("leaseCleanupFailed", e.cleanupFailed());
        }
        root.set("findings", Structured.findings(findings));
        root.set("notes", Structured.strings(notes));
        return root;
    }

    /** Latency for people: "84ms", "2.21s", "2s". */
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
