package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.model.ClusterState;
import io.nodegate.CollectionException;
import io.nodegate.testing.ControlPlaneFixtures;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ViewsCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final List<ViewSpec> asked = new ArrayList<>();

    private int run(Map<String, ClusterState> byName, String... args) {
        CommandLine cl = Nodegate.newCommandLine();
        ViewsCommand views = (ViewsCommand) cl.getSubcommands().get("views").getCommand();
        views.loader = spec -> {
            asked.add(spec);
            ClusterState state = byName.get(spec.context() != null ? spec.context() : spec.name());
            if (state == null) {
                throw new CollectionException("GET /api/v1/nodes: connection refused");
            }
            return state;
        };
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] full = new String[args.length + 1];
        full[0] = "views";
        System.arraycopy(args, 0, full, 1, args.length);
        return cl.execute(full);
    }

    @Test
    void twoKubeconfigsOfOneFileNameAreToldApartByTheirDirectory() {
        Map<String, ClusterState> byName = Map.of("a/kubeconfig", ControlPlaneFixtures.seed001FromCpNodeA().build(),
                "b/kubeconfig", ControlPlaneFixtures.seed001FromCpNodeB().build());
        run(byName, "--kubeconfig", "/tmp/a/kubeconfig", "--kubeconfig", "/tmp/b/kubeconfig");
        assertThat(asked).extracting(ViewSpec::name).containsExactly("a/kubeconfig", "b/kubeconfig");
        assertThat(out.toString()).contains("a/kubeconfig").doesNotContain("kubeconfig#1");
    }

    private static Map<String, ClusterState> seed001() {
        return Map.of("cp-node-a", ControlPlaneFixtures.seed001FromCpNodeA().build(),
                "cp-node-b", ControlPlaneFixtures.seed001FromCpNodeB().build(),
                "cp-node-c", ControlPlaneFixtures.seed001FromCpNodeC().build());
    }

    @Test
    void seed001TableShowsBothViewsSideBySideAndExitsOne() {
        int code = run(seed001(), "--context", "cp-node-a", "--context", "cp-node-c");

        assertThat(code).isEqualTo(ExitCode.FINDINGS);
        String text = out.toString();
        assertThat(text).containsPattern("cp-node-a\\s+https://10.0.1.1:6443\\s+v1.27.9\\+k3s1\\s+5")
                .containsPattern("cp-node-c\\s+https://10.0.1.3:6443\\s+v1.27.9\\+k3s1\\s+1")
                .containsPattern("NODE\\s+cp-node-a\\s+cp-node-c")
                .containsPattern("cp-node-c\\s+NotReady\\(Unknown\\) 7c0ffee0\\s+Ready b1ab1ab1")
                .containsPattern("worker-01\\s+Ready [0-9a-f]{8}\\s+-")
                .contains("  NG207 critical  divergent-views");
        assertThat(asked).extracting(ViewSpec::context).containsExactly("cp-node-a", "cp-node-c");
        assertThat(asked).extracting(ViewSpec::kubeconfig).containsOnlyNulls();
    }

    @Test
    void equalViewsExitZero() {
        int code = run(seed001(), "--context", "cp-node-a", "--context", "cp-node-b");

        assertThat(code).isEqualTo(ExitCode.OK);
        assertThat(out.toString()).contains("FINDINGS (0)\n  none\n").doesNotContain("NG207");
    }

    @Test
    void jsonCarriesRowsFindingsAndEvidence() throws Exception {
        int code = run(seed001(), "--context", "cp-node-a", "--context", "cp-node-c", "-o", "json");

        assertThat(code).isEqualTo(ExitCode.FINDINGS);
        JsonNode json = JsonMapper.builder().build().readTree(out.toString());
        assertThat(json.get("views")).hasSize(2);
        assertThat(json.get("views").get(1).get("nodeCount").asInt()).isEqualTo(1);
        JsonNode rowC = json.get("rows").get(2);
        assertThat(rowC.get("node").asString()).isEqualTo("cp-node-c");
        assertThat(rowC.get("cells").get("cp-node-a").get("ready").asString()).isEqualTo("Unknown");
        assertThat(rowC.get("cells").get("cp-node-c").get("uid").asString())
                .isEqualTo(ControlPlaneFixtures.CP_NODE_C_SPLIT_UID);
        assertThat(json.get("rows").get(0).get("cells").has("cp-node-c")).isFalse();
        JsonNode finding = json.get("findings").get(0);
        assertThat(finding.get("code").asString()).isEqualTo("NG207");
        assertThat(finding.get("severity").asString()).isEqualTo("critical");
        assertThat(finding.get("evidence").get("uidMismatches").get(0).get("node").asString()).isEqualTo("cp-node-c");
    }

    @Test
    void yamlIsStructuredToo() {
        int code = run(seed001(), "--context", "cp-node-a", "--context", "cp-node-c", "-o", "yaml");
        assertThat(code).isEqualTo(ExitCode.FINDINGS);
        assertThat(out.toString()).contains("code: \"NG207\"").contains("severity: \"critical\"")
                .contains("nodeCount: 1");
    }

    @Test
    void severalKubeconfigsAreOneViewEach() {
        Map<String, ClusterState> byFile = Map.of("a.yaml", ControlPlaneFixtures.seed001FromCpNodeA().build(),
                "c.yaml", ControlPlaneFixtures.seed001FromCpNodeC().build());

        int code = run(byFile, "--kubeconfig", "/tmp/x/a.yaml", "--kubeconfig", "/tmp/y/c.yaml");

        assertThat(code).isEqualTo(ExitCode.FINDINGS);
        assertThat(asked).extracting(ViewSpec::kubeconfig).containsExactly(Path.of("/tmp/x/a.yaml"),
                Path.of("/tmp/y/c.yaml"));
        assertThat(asked).extracting(ViewSpec::context).containsOnlyNulls();
    }

    @Test
    void contextsOfOneKubeconfigShareIt() {
        run(seed001(), "--kubeconfig", "/tmp/k.yaml", "--context", "cp-node-a", "--context", "cp-node-b");
        assertThat(asked).extracting(ViewSpec::kubeconfig).containsOnly(Path.of("/tmp/k.yaml"));
    }

    @Test
    void offlineDirectoriesAreViewsWithUniqueNames() {
        // two directories of one name are told apart by their parent directory, not by #1 and #2
        Map<String, ClusterState> byDir = Map.of("a/dump", ControlPlaneFixtures.seed001FromCpNodeA().build(),
                "b/dump", ControlPlaneFixtures.seed001FromCpNodeB().build());

        int code = run(byDir, "-f", "/tmp/a/dump", "-f", "/tmp/b/dump", "--now", "2026-08-15T05:00:00Z");

        assertThat(code).isEqualTo(ExitCode.OK);
        assertThat(asked).extracting(ViewSpec::files).containsExactly(Path.of("/tmp/a/dump"), Path.of("/tmp/b/dump"));
        assertThat(out.toString()).containsPattern("NODE\\s+a/dump\\s+b/dump");
    }

    @Test
    void oneViewIsAUsageError() {
        int code = run(seed001(), "--context", "cp-node-a");
        assertThat(code).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("at least two views; got 1");
        assertThat(asked).isEmpty();
    }

    @Test
    void contextsWithSeveralKubeconfigsAreAmbiguous() {
        int code = run(seed001(), "--kubeconfig", "a", "--kubeconfig", "b", "--context", "cp-node-a",
                "--context", "cp-node-c");
        assertThat(code).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("not both");
    }

    @Test
    void sameContextTwiceIsAUsageError() {
        assertThat(run(seed001(), "--context", "cp-node-a", "--context", "cp-node-a")).isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("given twice");
    }

    @Test
    void nowWithoutOfflineViewsIsAUsageError() {
        assertThat(run(seed001(), "--context", "cp-node-a", "--context", "cp-node-b", "--now", "2026-08-15T05:00:00Z"))
                .isEqualTo(ExitCode.USAGE);
        assertThat(err.toString()).contains("--now applies to offline views");
    }

    @Test
    void aViewThatCannotBeReadInvalidatesTheComparison() {
        int code = run(seed001(), "--context", "cp-node-a", "--context", "cp-node-x");

        assertThat(code).isEqualTo(ExitCode.COLLECTION);
        assertThat(err.toString()).contains("view cp-node-x (--context cp-node-x): GET /api/v1/nodes: "
                + "connection refused");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void sameServerTwiceIsNoted() {
        Map<String, ClusterState> twice = Map.of("a", ControlPlaneFixtures.seed001FromCpNodeA().build(),
                "b", ControlPlaneFixtures.seed001FromCpNodeA().build());
        run(twice, "--context", "a", "--context", "b");
        // notes are word-wrapped in the table: compare with line breaks taken out
        assertThat(out.toString().replaceAll("\\s+", " "))
                .contains("views a and b read the same server https://10.0.1.1:6443");
    }

    @Test
    void viewNotesAboutNodesAreKeptOthersDropped() {
        Map<String, ClusterState> noted = Map.of(
                "a", ControlPlaneFixtures.seed001FromCpNodeA().note("Node worker-01 has no status: the kubelet never "
                        + "reported").note("no CSINode objects in the input (not collected, or absent)").build(),
                "b", ControlPlaneFixtures.seed001FromCpNodeB().build());
        run(noted, "--context", "a", "--context", "b");
        assertThat(out.toString().replaceAll("\\s+", " ")).contains("a: Node worker-01 has no status")
                .doesNotContain("CSINode");
    }

    @Test
    void helpTeachesWithExamples() {
        CommandLine cl = Nodegate.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        assertThat(cl.execute("views", "--help")).isZero();
        assertThat(out.toString()).contains("nodegate views --context cp-node-a --context cp-node-c")
                .contains("--request-timeout").contains("Exit codes: 0 the views agree");
    }
}
