package io.nodegate.render;

import io.nodegate.render.output.Structured;
import io.nodegate.render.output.Style;
import io.nodegate.audit.Audit;
import io.nodegate.audit.AuditReport;
import io.nodegate.detect.AuditSettings;
import io.nodegate.model.ClusterState;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.List;

import static io.nodegate.testing.NodeFixtures.cluster;
import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class AuditRendererTest {

    private static AuditReport report() {
        Instant stop = Instant.parse("2026-10-19T05:23:30Z");
        ClusterState state = cluster()
                .healthy(node("keep-1").role("burnin").internalIp("192.0.2.21")
                        .systemUuid("4c4c4544-0042-3510-8051-b4c04f4e3332"))
                .node(node("gpu-a07").role("burnin").unknownSince(stop.minusSeconds(18), stop.plusSeconds(53)))
                .lease("gpu-a07", stop)
                .node(node("gpu-a08").role("burnin").unknownSince(stop.minusSeconds(10), stop.plusSeconds(60)))
                .lease("gpu-a08", stop.plusSeconds(12))
                .note("a note")
                .build();
        return Audit.run(state, AuditSettings.DEFAULTS);
    }

    @Test
    void jsonHasExactlyTheDocumentedShape() {
        JsonNode root = Structured.Mappers.JSON.readTree(Structured.json(AuditRenderer.tree(report())));

        assertThat(names(root)).containsExactly("now", "source", "nodes", "findings", "notes");
        assertThat(root.get("now").asString()).isEqualTo("2026-10-19T06:10:00Z");
        assertThat(root.get("source").asString()).isEqualTo("fixture");
        assertThat(root.get("notes").get(0).asString()).isEqualTo("a note");

        JsonNode a07 = root.get("nodes").get(0);
        assertThat(a07.get("name").asString()).isEqualTo("gpu-a07");
        assertThat(a07.get("ready").asString()).isEqualTo("Unknown");
        assertThat(a07.get("leaseRenewTime").asString()).isEqualTo("2026-10-19T05:23:30Z");
        assertThat(a07.get("leaseRenewAgeSeconds").asLong()).isEqualTo(2790L);
        assertThat(a07.get("roles").get(0).asString()).isEqualTo("burnin");

        JsonNode finding = root.get("findings").get(0);
        assertThat(names(finding)).containsExactly("code", "name", "severity", "nodes", "message", "evidence", "hint");
        assertThat(finding.get("severity").asString()).isIn("info", "warning", "critical");
        JsonNode batch = findByCode(root, "NG103");
        assertThat(batch.get("nodes").size()).isEqualTo(2);
        assertThat(batch.get("evidence").get("spreadSeconds").asLong()).isEqualTo(12L);
        assertThat(batch.get("evidence").get("firstStop").asString()).isEqualTo("2026-10-19T05:23:30Z");
    }

    @Test
    void yamlCarriesTheSameTree() {
        JsonNode tree = AuditRenderer.tree(report());
        JsonNode back = Structured.Mappers.YAML.readTree(Structured.yaml(tree));
        // Compare as JSON text: YAML reads small numbers back as int where the tree holds long.
        assertThat(Structured.json(back)).isEqualTo(Structured.json(tree));
        assertThat(back.get("nodes").get(1).get("ready").asString()).isEqualTo("Unknown");
        assertThat(back.get("nodes").get(2).get("ready").asString()).isEqualTo("True");
    }

    @Test
    void tableIsAlignedAndPlainWithoutColour() {
        String table = AuditRenderer.table(report(), Style.PLAIN, true);

        assertThat(table).doesNotContain("\u001b[");
        List<String> lines = table.lines().toList();
        String header = lines.stream().filter(l -> l.startsWith("NAME")).findFirst().orElseThrow();
        int leaseColumn = header.indexOf("LEASE");
        String a07 = lines.stream().filter(l -> l.startsWith("gpu-a07")).findFirst().orElseThrow();
        String keep = lines.stream().filter(l -> l.startsWith("keep-1")).findFirst().orElseThrow();
        assertThat(a07.substring(leaseColumn)).startsWith("46m30s");
        assertThat(keep.substring(leaseColumn)).startsWith("10s");
        assertThat(a07).contains("Unknown (NodeStatusUnknown)");
        assertThat(keep).contains("4c4c4544").doesNotContain("4c4c4544-0042");
        assertThat(table).contains("FINDINGS (").contains("NG103 warning").contains("hint: ").contains("NOTES");
    }

    @Test
    void theDefaultTableFitsOneHundredTwentyColumnsAndWideAddsTheRest() {
        AuditReport big = io.nodegate.audit.Audit.run(io.nodegate.source.dump.DumpSource.load(
                List.of(java.nio.file.Path.of("examples/cluster-a-batch-stop")), null), io.nodegate.detect.AuditSettings.DEFAULTS);
        String narrow = AuditRenderer.table(big, Style.PLAIN);
        String header = narrow.lines().filter(l -> l.startsWith("NAME")).findFirst().orElseThrow();
        assertThat(header).doesNotContain("KUBELET").doesNotContain("BOOT-ID");
        assertThat(narrow.lines().filter(l -> !l.startsWith("source: ") && !l.startsWith("    ") && !l.startsWith("  ")))
                .allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(120));
        String wide = AuditRenderer.table(big, Style.PLAIN, true);
        assertThat(wide.lines().filter(l -> l.startsWith("NAME")).findFirst().orElseThrow())
                .contains("KUBELET").contains("BOOT-ID").contains("SYSTEM-UUID");
        assertThat(wide).contains("Unknown (NodeStatusUnknown)");
    }

    @Test
    void wideSaysWhoCordonedANodeAndHowLongAgoWithin120Columns() {
        Instant now = io.nodegate.testing.NodeFixtures.NOW;
        ClusterState state = cluster()
                .healthy(node("gpu-a06").role("control-plane,etcd,master").internalIp("198.51.100.106")
                        .cordonedBy("kubectl", now.minus(java.time.Duration.ofDays(3))))
                .healthy(node("gpu-a07").role("worker").internalIp("198.51.100.107")
                        .cordonedBy("system-upgrade-controller-with-a-long-name", now.minusSeconds(7200))
                        .annotation("nodegate.io/cordon-reason", "RMA 4411: bad DIMM"))
                .healthy(node("gpu-a08").cordoned(now.minus(java.time.Duration.ofDays(1))))
                .healthy(node("gpu-a09"))
                .build();
        AuditReport report = Audit.run(state, AuditSettings.DEFAULTS);
        String wide = AuditRenderer.table(report, Style.PLAIN, true);
        List<String> lines = wide.lines().toList();
        String header = lines.stream().filter(l -> l.startsWith("NAME")).findFirst().orElseThrow();
        int cordon = header.indexOf("CORDON");
        assertThat(row(lines, "gpu-a06").substring(cordon)).startsWith("kubectl 3d ");
        assertThat(row(lines, "gpu-a07").substring(cordon)).startsWith("system-upgrade-… 2h ");
        assertThat(row(lines, "gpu-a08").substring(cordon)).as("no managedFields: who is unknown").startsWith("yes ");
        assertThat(row(lines, "gpu-a09").substring(cordon)).startsWith("no ");
        assertThat(AuditRenderer.table(report, Style.PLAIN)).as("the default table keeps yes/no")
                .doesNotContain("kubectl 3d");

        JsonNode a07 = AuditRenderer.tree(report).get("nodes").get(1);
        assertThat(a07.get("cordonedBy").asString()).isEqualTo("system-upgrade-controller-with-a-long-name");
        assertThat(a07.get("cordonedAt").asString()).isEqualTo(now.minusSeconds(7200).toString());
        assertThat(a07.get("cordonAgeSeconds").asLong()).isEqualTo(7200L);
        assertThat(a07.get("cordonReason").asString()).isEqualTo("RMA 4411: bad DIMM");

        // -o wide was already wider than 120 columns before it said who cordoned (READY's reason, kubelet and host
        // IDs); the owner adds at most the manager's first 16 characters and an age to CORDON
        String header2 = lines.stream().filter(l -> l.startsWith("NAME")).findFirst().orElseThrow();
        assertThat(header2.indexOf("ROLES") - cordon).isLessThanOrEqualTo(AuditRenderer.MANAGER_WIDTH + 1 + 4 + 3);
    }

    private static String row(List<String> lines, String name) {
        return lines.stream().filter(l -> l.startsWith(name + " ")).findFirst().orElseThrow();
    }

    @Test
    void colourOnlyWhenAsked() {
        assertThat(AuditRenderer.table(report(), new Style(true))).contains("\u001b[33mNG101 warning");
    }

    @Test
    void findingsSectionSaysNoneWhenEmpty() {
        assertThat(FindingsSection.render(List.of(), Style.PLAIN)).isEqualTo("FINDINGS (0)\n  none\n");
    }

    @Test
    void textTableRejectsRaggedRows() {
        TextTable t = new TextTable("A", "B");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> t.row("only-one"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static List<String> names(JsonNode node) {
        return node.propertyNames().stream().toList();
    }

    private static JsonNode findByCode(JsonNode root, String code) {
        for (JsonNode f : root.get("findings")) {
            if (f.get("code").asString().equals(code)) {
                return f;
            }
        }
        throw new AssertionError("no finding " + code);
    }
}
