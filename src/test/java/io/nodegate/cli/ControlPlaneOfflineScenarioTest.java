package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.model.ClusterState;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.ControlPlaneFixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The seed scenarios from kubectl/etcdctl dumps on disk, through the real offline source (-f). */
class ControlPlaneOfflineScenarioTest {

    private static final String NOW = "2026-08-15T05:00:00Z";

    @TempDir
    Path dir;
    private CliRun last;

    private int run(String... args) {
        last = CliRun.run(args);
        return last.exitCode();
    }

    /** `kubectl get ... -o json` of the state's objects, as one List, in its own directory. */
    private Path dump(String name, ClusterState state) throws Exception {
        Path d = Files.createDirectories(dir.resolve(name));
        String json = new KubernetesSerialization().asJson(new KubernetesListBuilder()
                .withItems(ControlPlaneFixtures.toObjects(state)).build());
        Files.writeString(d.resolve("objects.json"), json);
        return d;
    }

    @Test
    void seed001DumpsFromEachServerShowTheSplit() throws Exception {
        Path a = dump("from-cp-node-a", ControlPlaneFixtures.seed001FromCpNodeA().build());
        Path c = dump("from-cp-node-c", ControlPlaneFixtures.seed001FromCpNodeC().build());

        int code = run("views", "-f", a.toString(), "-f", c.toString(), "--now", NOW);

        assertThat(code).as(last.err()).isEqualTo(ExitCode.FINDINGS);
        assertThat(last.out())
                .containsPattern("NODE\\s+from-cp-node-a\\s+from-cp-node-c")
                .containsPattern("cp-node-c\\s+NotReady\\(Unknown\\) 7c0ffee0\\s+Ready b1ab1ab1")
                .contains("  NG207 critical  divergent-views")
                .doesNotContain("CSINode").doesNotContain("cattle-system");
        // messages are word-wrapped in the table: compare with line breaks taken out
        assertThat(last.out().replaceAll("\\s+", " ")).contains("only cp-node-c, as if alone");
    }

    @Test
    void dumpsOfTwoServersOfOneClusterAgree() throws Exception {
        Path a = dump("from-cp-node-a", ControlPlaneFixtures.seed001FromCpNodeA().build());
        Path b = dump("from-cp-node-b", ControlPlaneFixtures.seed001FromCpNodeB().build());

        assertThat(run("views", "-f", a.toString(), "-f", b.toString(), "--now", NOW))
                .as(last.err()).isEqualTo(ExitCode.OK);
        assertThat(last.out()).contains("FINDINGS (0)\n  none\n");
    }

    @Test
    void seed003WithEtcdctlMemberListCountsVotersFromEtcd() throws Exception {
        Path d = dump("seed003", ControlPlaneFixtures.seed003().build());
        // etcdctl member list -w json, as read on lemuel: IDs are uint64 decimals
        Files.writeString(d.resolve("etcd-member-list.json"), """
                {"header":{"cluster_id":99999001,"member_id":1678140306,"raft_term":7},"members":[
                {"ID":4092034050,"name":"ilwon-f3f37c02","peerURLs":["https://192.168.10.12:2380"],"clientURLs":["https://192.168.10.12:2379"]},
                {"ID":1184122,"name":"solomon-0012157a","peerURLs":["https://192.168.10.13:2380"],"clientURLs":["https://192.168.10.13:2379"]},
                {"ID":1678140306,"name":"lemuel-64066392","peerURLs":["https://192.168.10.11:2380"],"clientURLs":["https://192.168.10.11:2379"]}]}
                """);

        int code = run("redundancy", "-f", d.toString(), "--now", NOW, "-o", "json");

        assertThat(code).as(last.err()).isEqualTo(ExitCode.FINDINGS);
        JsonNode json = JsonMapper.builder().build().readTree(last.out());
        JsonNode etcd = json.get("layers").get(0);
        assertThat(etcd.get("members").toString()).isEqualTo("[\"ilwon\",\"lemuel\",\"solomon\"]");
        assertThat(etcd.get("basis").asString()).startsWith("etcd member list");
        assertThat(json.get("findings").get(0).get("code").asString()).isEqualTo("NG210");
        assertThat(json.get("findings").get(0).get("message").asString()).doesNotContain("inferred");
        assertThat(json.get("serverNodes").get(1).get("runningPods").asInt()).isEqualTo(6);
    }
}
