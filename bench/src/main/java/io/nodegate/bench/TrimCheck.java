package io.nodegate.bench;

import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.model.ClusterState;
import io.nodegate.render.AuditRenderer;
import io.nodegate.render.output.JunitReport;
import io.nodegate.render.output.Style;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.source.json.KubeJson;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The trimming of Node labels and annotations on a generated field-sized cluster (a {@code dump} of the synthetic
 * cluster): the audit of the dump read with {@link KubeJson#MODEL} and with {@link KubeJson#MODEL_UNTRIMMED} must
 * give the same table, wide table, JSON (findings with their evidence) and JUnit report. Runs on nodegate.jar's
 * classpath: {@code java -cp target/nodegate.jar:bench/target/nodegate-bench.jar io.nodegate.bench.TrimCheck FILE NOW}.
 * Exits 1 when an output differs (the unit test TrimmedNodeMetadataChangesNothingTest does the same for the
 * examples).
 */
public final class TrimCheck {

    private TrimCheck() {
    }

    public static void main(String[] args) {
        Path dump = Path.of(args[0]);
        String now = args.length > 1 ? args[1] : "2026-10-19T06:10:00Z";
        ClusterState trimmed = DumpSource.read(List.of(dump), now, KubeJson.MODEL).state();
        ClusterState whole = DumpSource.read(List.of(dump), now, KubeJson.MODEL_UNTRIMMED).state();
        long keptTrimmed = trimmed.nodes().stream().mapToLong(n -> n.labels().size() + n.annotations().size()).sum();
        long keptWhole = whole.nodes().stream().mapToLong(n -> n.labels().size() + n.annotations().size()).sum();
        List<String> a = outputs(trimmed);
        List<String> b = outputs(whole);
        String[] names = {"table", "wide table", "JSON", "JUnit"};
        boolean same = true;
        for (int i = 0; i < a.size(); i++) {
            boolean equal = a.get(i).equals(b.get(i));
            same &= equal;
            System.out.printf("%-10s %s (%d bytes)%n", names[i], equal ? "same" : "DIFFERENT", a.get(i).length());
        }
        AuditReport report = Audit.run(trimmed, AuditSettings.DEFAULTS);
        System.out.printf("%d nodes, %d findings; labels + annotations per node: %.1f read whole, %.1f kept%n",
                trimmed.nodes().size(), report.findings().size(), (double) keptWhole / whole.nodes().size(),
                (double) keptTrimmed / trimmed.nodes().size());
        System.exit(same ? 0 : 1);
    }

    private static List<String> outputs(ClusterState state) {
        AuditReport report = Audit.run(state, AuditSettings.DEFAULTS);
        return List.of(AuditRenderer.table(report, Style.PLAIN, false), AuditRenderer.table(report, Style.PLAIN, true),
                AuditRenderer.tree(report).toString(), JunitReport.xml(report, Map.of(), Set.of()));
    }
}
