package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `nodegate etcd -f` over real etcdctl output of the seed-001 fork (see src/test/resources/etcd-seed001/README.md).
 */
class EtcdOfflineCommandTest {

    static final Path DIR = Path.of("src/test/resources/etcd-seed001");

    static String[] args(String... extra) {
        List<String> a = new ArrayList<>(List.of("etcd"));
        for (String f : List.of("member-list-24791.json", "endpoint-status-24791.json", "member-list-24792.json",
                "endpoint-status-24792.json", "member-list-24793.json", "endpoint-status-24793.json")) {
            a.addAll(List.of("-f", DIR.resolve(f).toString()));
        }
        a.addAll(List.of(extra));
        return a.toArray(String[]::new);
    }

    @Test
    void seed001ForkFromEtcdctlFiles() {
        CliRun run = CliRun.run(args("-o", "json"));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        JsonNode doc = JsonMapper.builder().build().readTree(run.out());
        assertThat(doc.path("endpoints").size()).isEqualTo(3);
        List<String> codes = doc.path("findings").findValuesAsString("code");
        assertThat(codes).contains("NG201", "NG202", "NG203").doesNotContain("NG204", "NG205", "NG206");
        JsonNode split = doc.path("findings").get(codes.indexOf("NG201"));
        assertThat(split.path("nodes").get(0).asString()).isEqualTo("cp-node-c");
        assertThat(split.path("evidence").path("sides").get(0).path("original").asBoolean()).isTrue();
        assertThat(doc.path("notes").toString()).contains("NG204/NG205 skipped");
    }

    @Test
    void withNodesTheMembersPairUpAndNothingIsAWorker() {
        CliRun run = CliRun.run(args("-f", DIR.resolve("nodes.json").toString()));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        assertThat(run.out()).contains("NG201").doesNotContain("NG204").doesNotContain("NG205")
                .doesNotContain("NG204/NG205 skipped");
    }

    @Test
    void filesWithoutEtcdDataAreAnInputError() {
        CliRun run = CliRun.run("etcd", "-f", DIR.resolve("nodes.json").toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("hold no etcd data");
    }
}
