package io.nodegate.cli;

import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Offline input that is empty, truncated or wrong must never read as a healthy cluster, and numbers that cannot be
 * what they claim must never become findings. Each case here once ended in exit 0 "No nodes … FINDINGS (0)", in a
 * critical finding built on a broken file, or in a Java exception.
 */
class OfflineInputHardeningTest {

    static final String NOW = "--now=2026-10-19T06:10:00Z";

    @TempDir
    Path tmp;

    Path write(String name, String text) throws IOException {
        Path p = tmp.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    void assertInputError(CliRun run, String... mentions) {
        assertThat(run.exitCode()).as(run.all()).isEqualTo(2);
        assertThat(run.err()).as(run.all()).startsWith("nodegate: ").contains(mentions)
                .doesNotContain("Exception", "jackson", "at io.nodegate");
        assertThat(run.out()).as(run.all()).doesNotContain("FINDINGS (0)");
    }

    // ---- defect 6: empty input is not a healthy cluster ----------------------------------------------------

    @Test
    void emptyWhitespaceNullAndScalarFilesAreInputErrors() throws IOException {
        for (String[] c : new String[][]{{"empty.json", ""}, {"blank.yaml", "  \n\n \t\n"}, {"null.json", "null"},
                {"scalar.yaml", "42\n"}, {"string.json", "\"nodes\""}}) {
            Path f = write(c[0], c[1]);
            assertInputError(CliRun.run("audit", "-f", f.toString(), NOW), f.toString());
        }
    }

    @Test
    void inputWithoutNodesIsAnErrorUnlessTheUserSaysTheClusterIsEmpty() throws IOException {
        Path configMaps = write("cms/cm.json", """
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default"}}""");
        Path deployment = write("deploy.yaml", """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web, namespace: default}
                """);
        Path emptyDir = Files.createDirectories(tmp.resolve("empty-dir"));
        for (Path p : new Path[]{configMaps.getParent(), deployment, emptyDir}) {
            assertInputError(CliRun.run("audit", "-f", p.toString(), NOW), "no Node objects", "--allow-empty");
        }
        Path emptyList = write("empty-list.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]}");
        assertInputError(CliRun.run("audit", "-f", emptyList.toString(), NOW), "no Node objects");
        CliRun allowed = CliRun.run("audit", "-f", emptyList.toString(), NOW, "--allow-empty");
        assertThat(allowed.exitCode()).as(allowed.all()).isZero();
    }

    @Test
    void aCollectionWithAnEmptyOrMissingRequiredFileIsAnError() throws IOException {
        Path copy = copyOf(Path.of("examples/healthy"), "healthy");
        Files.writeString(copy.resolve("nodes.json"), "");
        assertInputError(CliRun.run("audit", "-f", copy.toString()), "nodes.json", "empty");

        Path missing = copyOf(Path.of("examples/healthy"), "healthy-missing");
        Files.delete(missing.resolve("node-password-secrets.json"));
        assertInputError(CliRun.run("audit", "-f", missing.toString()), "node-password-secrets.json", "missing");
    }

    @Test
    void aViewWithoutNodesIsNeverEvidenceOfSplitBrain() throws IOException {
        Path empty = write("empty.json", "");
        CliRun run = CliRun.run("views", "-f", empty.toString(), "-f", "examples/healthy");
        assertInputError(run, empty.toString());
        assertThat(run.all()).doesNotContain("NG207");
        Path noNodes = write("nonodes/list.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]}");
        CliRun none = CliRun.run("views", "-f", noNodes.getParent().toString(), "-f", "examples/healthy", NOW);
        assertInputError(none, "no Node objects");
        assertThat(none.all()).doesNotContain("NG207");
    }

    Path copyOf(Path dir, String name) throws IOException {
        Path target = Files.createDirectories(tmp.resolve(name));
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.copy(f, target.resolve(f.getFileName()));
            }
        }
        return target;
    }

    // ---- defect 7: YAML limits and aliases ---------------------------------------------------------------------

    @Test
    void aYamlDumpLargerThanThreeMegabytesIsRead() throws IOException {
        StringBuilder yaml = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
        int nodes = 0;
        while (yaml.length() < 4_800_000) {
            yaml.append(yamlNode("node-" + nodes++, "True"));
        }
        Path big = write("big.yaml", yaml.toString());
        CliRun run = CliRun.run("audit", "-f", big.toString(), NOW, "-o", "json");
        assertThat(run.exitCode()).as(run.err()).isIn(0, 1);
        assertThat(run.out()).contains("\"node-" + (nodes - 1) + "\"");
    }

    @Test
    void yamlAliasesAreRefusedNotReadAsTheirName() throws IOException {
        Path aliased = write("aliased.yaml", "apiVersion: v1\nkind: List\nitems:\n"
                + yamlNode("n1", "&t \"True\"") + yamlNode("n2", "*t"));
        CliRun run = CliRun.run("audit", "-f", aliased.toString(), NOW);
        assertInputError(run, aliased.toString(), "alias", "line");
    }

    static String yamlNode(String name, String ready) {
        return """
                - apiVersion: v1
                  kind: Node
                  metadata:
                    name: %1$s
                    uid: uid-%1$s
                    creationTimestamp: "2026-01-01T00:00:00Z"
                    labels: {kubernetes.io/hostname: %1$s}
                  status:
                    conditions:
                    - type: Ready
                      status: %2$s
                      reason: KubeletReady
                      lastHeartbeatTime: "2026-10-19T06:09:50Z"
                      lastTransitionTime: "2026-01-01T00:00:00Z"
                    addresses: [{type: InternalIP, address: 10.0.0.1}]
                    nodeInfo: {bootID: b, systemUUID: u-%1$s, machineID: m, kubeletVersion: v1.34.1+rke2r1, kernelVersion: k, osImage: o, containerRuntimeVersion: c, kubeProxyVersion: v, operatingSystem: linux, architecture: amd64}
                """.formatted(name, ready).replace("\n", "\n  ").replaceFirst("^", "  ").stripTrailing() + "\n";
    }

    // ---- defect 8: etcd numbers ----------------------------------------------------------------------------

    static String status(String endpoint, String memberId, String raftTerm) {
        return "[{\"Endpoint\":" + endpoint + ",\"Status\":{\"header\":{\"cluster_id\":2,\"member_id\":" + memberId
                + ",\"revision\":1,\"raft_term\":2},\"version\":\"3.5.9\",\"dbSize\":100,\"leader\":" + memberId
                + ",\"raftIndex\":5,\"raftTerm\":" + raftTerm + "}}]";
    }

    static String memberList(String id) {
        return "{\"header\":{\"cluster_id\":2,\"member_id\":" + id + ",\"raft_term\":2},\"members\":[{\"ID\":" + id
                + ",\"name\":\"a\",\"peerURLs\":[\"https://10.0.0.1:2380\"],\"clientURLs\":[\"https://10.0.0.1:2379\"]}]}";
    }

    @Test
    void brokenEtcdNumbersAreInputErrorsNamingFileAndField() throws IOException {
        Path nullEndpoint = write("status-null.json", status("null", "7", "2"));
        assertInputError(CliRun.run("etcd", "-f", nullEndpoint.toString()), nullEndpoint.toString(), "Endpoint");

        Path huge = write("members-huge.json", memberList("1180591620717411303424")); // 2^70
        CliRun hugeRun = CliRun.run("etcd", "-f", huge.toString());
        assertInputError(hugeRun, huge.toString(), "header.member_id", "1180591620717411303424");
        assertThat(hugeRun.all()).doesNotContain("quorum");

        Path negative = write("members-negative.json", memberList("-5"));
        assertInputError(CliRun.run("etcd", "-f", negative.toString()), negative.toString(), "-5");

        Path term = write("status-term.json", status("\"https://10.0.0.1:2379\"", "7", "\"abc\""));
        assertInputError(CliRun.run("etcd", "-f", term.toString()), term.toString(), "raftTerm");

        Path fine = write("status-fine.json", status("\"https://10.0.0.1:2379\"", "\"ffffffffffffffff\"", "\"12\""));
        // the full member ID is a -o wide column (the table fits 120 columns)
        CliRun ok = CliRun.run("etcd", "-f", fine.toString(), "-o", "wide");
        assertThat(ok.exitCode()).as(ok.all()).isNotEqualTo(2);
        assertThat(ok.out()).contains("ffffffffffffffff");
    }
}
