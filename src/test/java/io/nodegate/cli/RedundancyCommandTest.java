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
import java.util.function.Supplier;

import static io.nodegate.testing.ControlPlaneFixtures.ILWON_IP;
import static io.nodegate.testing.ControlPlaneFixtures.LEMUEL_IP;
import static io.nodegate.testing.ControlPlaneFixtures.SOLOMON_IP;
import static org.assertj.core.api.Assertions.assertThat;

class RedundancyCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(Supplier<ClusterState> state, String... args) {
        CommandLine cl = Nodegate.newCommandLine();
        RedundancyCommand cmd = (RedundancyCommand) cl.getSubcommands().get("redundancy").getCommand();
        cmd.loader = state;
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] full = new String[args.length + 1];
        full[0] = "redundancy";
        System.arraycopy(args, 0, full, 1, args.length);
        return cl.execute(full);
    }

    @Test
    void seed003TableShowsLayersPerRoleAndPodsPerServer() {
        int code = run(() -> ControlPlaneFixtures.seed003WithEtcd().build(), "-o", "wide");

        assertThat(code).isEqualTo(ExitCode.FINDINGS);
        assertThat(out.toString())
                .containsPattern("etcd voters\\s+3\\s+1 failure\\s+ilwon,lemuel,solomon")
                .containsPattern("kube-apiserver\\s+2\\s+1 failure\\s+ilwon,lemuel")
                .containsPattern("agent failover list\\s+2\\s+1 failure\\s+ilwon,lemuel\\s+-\\s+derived from")
                .containsPattern("kube-scheduler\\s+2\\s+1 failure\\s+ilwon,lemuel\\s+ilwon")
                .containsPattern("kube-controller-manager\\s+2\\s+1 failure\\s+ilwon,lemuel\\s+lemuel")
                .containsPattern("lemuel\\s+control-plane,etcd,master\\s+voter\\s+yes\\s+candidate\\s+candidate\\s+-\\s+"
                        + "node-role.kubernetes.io/control-plane:NoSchedule\\s+6")
                .containsPattern("ilwon\\s+.*dedicated=management:PreferNoSchedule\\s+34")
                .containsPattern("solomon\\s+control-plane,etcd,master\\s+voter\\s+-\\s+-\\s+-\\s+"
                        + "apiserver,scheduler,controller-manager\\s+dedicated=storage:NoSchedule\\s+6")
                .contains("  NG210 warning  apiserver-layers-below-etcd  solomon\n")
                .doesNotContain("david");
    }

    @Test
    void theDefaultTableFitsOneHundredTwentyColumnsWithoutTheWideColumns() {
        int code = run(() -> ControlPlaneFixtures.seed003WithEtcd().build());
        assertThat(code).isEqualTo(ExitCode.FINDINGS);
        String table = out.toString();
        assertThat(table).doesNotContain("COUNTED FROM").doesNotContain("TAINTS")
                .containsPattern("lemuel\\s+control-plane,etcd,master\\s+voter\\s+yes\\s+candidate\\s+candidate\\s+6");
        assertThat(table.lines().filter(l -> !l.startsWith("Redundancy per role") && !l.startsWith("    ")))
                .allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(120));
    }

    @Test
    void jsonPipesTheSameReport() throws Exception {
        int code = run(() -> ControlPlaneFixtures.seed003().build(), "-o", "json");

        assertThat(code).isEqualTo(ExitCode.FINDINGS);
        JsonNode json = JsonMapper.builder().build().readTree(out.toString());
        assertThat(json.get("distribution").asString()).isEqualTo("k3s");
        assertThat(json.get("layers").get(0).get("role").asString()).isEqualTo("etcd voters");
        assertThat(json.get("layers").get(0).get("basis").asString()).contains("inferred from role labels");
        assertThat(json.get("layers").get(1).get("count").asInt()).isEqualTo(2);
        assertThat(json.get("serverNodes")).hasSize(3);
        assertThat(json.get("serverNodes").get(0).get("runningPods").asInt()).isEqualTo(34);
        assertThat(json.get("findings").get(0).get("code").asString()).isEqualTo("NG210");
    }

    @Test
    void fullyRedundantControlPlaneExitsZero() {
        int code = run(() -> ControlPlaneFixtures.seed003WithEtcd().apiEndpoints(LEMUEL_IP, ILWON_IP, SOLOMON_IP)
                .build(), "-o", "yaml");

        assertThat(code).isEqualTo(ExitCode.OK);
        assertThat(out.toString()).contains("findings: []");
    }

    @Test
    void collectionFailureExitsThree() {
        int code = run(() -> {
            throw new CollectionException("GET /api/v1/pods: 500 Internal Server Error");
        });
        assertThat(code).isEqualTo(ExitCode.COLLECTION);
        assertThat(err.toString()).contains("collection failed: GET /api/v1/pods: 500");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void helpTeachesWithExamples() {
        CommandLine cl = Nodegate.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        assertThat(cl.execute("redundancy", "--help")).isZero();
        assertThat(out.toString()).contains("nodegate redundancy --context prod -o json").contains("--kubeconfig")
                .contains("NG210");
    }
}
