package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kubectl's tables fit a 120-column terminal and so do nodegate's: every command that reads offline input prints
 * its -o table within 120 columns on every bundled example and test scenario (details that do not fit go to
 * -o wide and -o json, or continue on indented lines). OutputEverywhereTest holds the commands that need a live
 * cluster to the same width.
 */
class TablesFitTest {

    private static final int FIT = 120;

    @Test
    void everyOfflineTableFits120Columns() throws IOException {
        List<List<String>> runs = new ArrayList<>();
        List<String> clusters = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(Path.of("examples"))) {
            for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                if (Files.exists(dir.resolve("nodes.json"))) {
                    clusters.add(dir.toString());
                }
                try (Stream<Path> sub = Files.list(dir)) {
                    sub.filter(d -> Files.exists(d.resolve("nodes.json"))).sorted()
                            .forEach(d -> clusters.add(d.toString()));
                }
            }
        }
        assertThat(clusters).as("the examples' cluster dumps").hasSizeGreaterThan(6);
        for (String c : clusters) {
            runs.add(List.of("audit", "-f", c));
            runs.add(List.of("redundancy", "-f", c));
            if (Files.exists(Path.of(c, "member-list.json"))) {
                runs.add(List.of("etcd", "-f", c));
            }
        }
        // the clusters that go together: a split brain's two sides, a fleet's two clusters
        for (String[] pair : new String[][]{{"examples/split-brain/original-side", "examples/split-brain/separated-side"},
                {"examples/fleet-departure/cluster-a", "examples/fleet-departure/cluster-b"}}) {
            runs.add(List.of("views", "-f", pair[0], "-f", pair[1]));
            runs.add(List.of("fleet", "-f", pair[0], "-f", pair[1]));
        }
        runs.add(List.of("etcd", "-f", "examples/split-brain/original-side/member-list.json", "-f",
                "examples/split-brain/original-side/endpoint-status.json", "-f",
                "examples/split-brain/separated-side/member-list.json", "-f",
                "examples/split-brain/separated-side/endpoint-status.json"));
        runs.add(List.of("handover", "status", "--record", "examples/handover-case-2/nodehandover.json", "-f",
                "examples/fleet-departure/cluster-a", "--fleet-dump", "examples/fleet-departure/cluster-b"));
        runs.add(List.of("handover", "report", "--record", "examples/handover-case-2/nodehandover.json", "--html",
                Files.createDirectories(Path.of("target/tables-fit")).resolve("page.html").toString()));
        try (Stream<Path> trees = Files.list(Path.of("src/test/resources/host-trees"))) {
            for (Path t : trees.filter(d -> Files.isDirectory(d.resolve("tree"))).sorted().toList()) {
                runs.add(List.of("host", "inspect", "--root", t.resolve("tree").toString(), "--systemctl",
                        t.resolve("systemctl").toString()));
            }
        }
        runs.add(List.of("policy", "-o", "table"));
        runs.add(List.of("alerts", "-o", "table"));
        runs.add(List.of("install", "--image", "registry.example/nodegate:0.1.0", "-o", "table"));
        runs.add(List.of("version"));

        List<String> problems = new ArrayList<>();
        int lines = 0;
        for (List<String> args : runs) {
            CliRun run = CliRun.run(args.toArray(String[]::new));
            assertThat(run.err()).as(String.join(" ", args)).doesNotContain("Exception");
            if (run.exitCode() == 2) {
                problems.add(String.join(" ", args) + ": usage error " + run.err());
            }
            for (String line : run.out().split("\n")) {
                lines++;
                if (line.length() > FIT) {
                    problems.add(String.join(" ", args) + ": a line of " + line.length() + " columns:\n" + line);
                }
            }
        }
        assertThat(lines).as("lines printed").isGreaterThan(500);
        assertThat(problems).as(String.join("\n\n", problems)).isEmpty();
    }
}
