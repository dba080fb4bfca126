package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.detect.probe.SlowApiserverDetector;
import io.nodegate.model.probe.EndpointResult;
import io.nodegate.model.probe.Latencies;
import io.nodegate.model.probe.ProbeSettings;
import io.nodegate.probe.ProbeReport;
import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/** `nodegate probe apiservers` output: the table, and the tree behind -o json/yaml. */
public final class ProbeRenderer {

    private ProbeRenderer() {
    }

    /** The probe as `probe apiservers` prints it. */
    public record Output(ProbeReport report) implements TextReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return table(report, style, wide);
        }

        @Override
        public tools.jackson.databind.JsonNode tree() {
            return ProbeRenderer.tree(report);
        }
    }

    public static String table(ProbeReport report, Style style) {
        return table(report, style, false);
    }

    /** {@code wide} adds each apiserver's URL as it was reached and the probe Lease's full name. */
    public static String table(ProbeReport report, Style style, boolean wide) {
        ProbeSettings settings = report.settings();
        List<Finding> findings = report.findings();
        List<EndpointResult> endpoints = report.endpoints();
        StringBuilder out = new StringBuilder();
        out.append("source: ").append(report.source()).append('\n');
        String probe = "Probe Lease " + settings.namespace() + '/' + settings.leaseName() + ": "
                + settings.renewals() + " renewals (PUT) per apiserver, slow above "
                + Latencies.ms(settings.threshold()) + " = " + settings.thresholdFraction() + " × renew deadline "
                + Latencies.ms(settings.renewDeadline());
        FindingsSection.fit(probe, "", "  ").forEach(l -> out.append(l).append('\n'));
        out.append('\n');
        TextTable t = wide ? new TextTable("APISERVER", "RENEWALS", "P50", "P99", "MAX", "RESULT", "PROBE LEASE", "URL",
                "LEASE") : new TextTable("APISERVER", "RENEWALS", "P50", "P99", "MAX", "RESULT", "PROBE LEASE");
        List<String> slow = findings.stream().filter(f -> SlowApiserverDetector.CODE.code().equals(f.code()))
                .flatMap(f -> f.nodes().stream()).toList();
        for (EndpointResult e : endpoints) {
            Latencies l = e.latencies();
            String result = e.error() != null ? "ERROR" : slow.contains(e.target().hostPort()) ? "SLOW" : "ok";
            List<java.util.function.UnaryOperator<String>> styles = new ArrayList<>();
            for (int i = 0; i < (wide ? 9 : 7); i++) {
                styles.add(null);
            }
            if (!"ok".equals(result)) {
                styles.set(5, s -> style.severity(Severity.WARNING, s));
            }
            List<String> cells = new ArrayList<>(List.of(e.target().hostPort(),
                    l == null ? e.renewals().size() + "/" + settings.renewals() : String.valueOf(l.count()),
                    l == null ? "-" : Latencies.ms(l.p50()), l == null ? "-" : Latencies.ms(l.p99()),
                    l == null ? "-" : Latencies.ms(l.max()), result, e.cleanup()));
            if (wide) {
                cells.add(e.url() == null ? "-" : e.url());
                cells.add(settings.namespace() + "/" + settings.leaseName());
            }
            t.styledRow(cells, styles);
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
        String n = FindingsSection.notes(report.notes(), style);
        if (!n.isEmpty()) {
            out.append('\n').append(n);
        }
        return out.toString();
    }

    public static ObjectNode tree(ProbeReport report) {
        ProbeSettings settings = report.settings();
        List<Finding> findings = report.findings();
        List<EndpointResult> endpoints = report.endpoints();
        ObjectNode root = Structured.object();
        root.put("source", report.source());
        ObjectNode probe = root.putObject("probe");
        probe.put("leaseNamespace", settings.namespace());
        probe.put("leaseName", settings.leaseName());
        probe.put("renewals", settings.renewals());
        probe.put("renewDeadlineSeconds", Latencies.seconds(settings.renewDeadline()));
        probe.put("thresholdFraction", settings.thresholdFraction());
        probe.put("thresholdSeconds", Latencies.seconds(settings.threshold()));
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
                o.put("p50Seconds", Latencies.seconds(l.p50()));
                o.put("p99Seconds", Latencies.seconds(l.p99()));
                o.put("maxSeconds", Latencies.seconds(l.max()));
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
        root.set("notes", Structured.strings(report.notes()));
        return root;
    }
}
