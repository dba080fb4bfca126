package io.nodegate.cli;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.FleetNodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** `inventory init` prints (or writes) the declared inventory; `audit` then reports NG112 and NG113 against it. */
class InventoryCommandTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NOW = "2026-10-26T08:00:00Z";

    @TempDir
    Path dir;

    private static String node(String name, String uuid, String machineId, String ip) {
        return FleetNodes.node(name, uuid, machineId, ip);
    }

    private static String list(String... items) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + String.join(",", items) + "]}";
    }

    @Test
    void initPrintsTheConfigMapAndAuditReportsWhatItDoesNotPlace() throws Exception {
        Path today = dir.resolve("today");
        Files.createDirectories(today);
        Files.writeString(today.resolve("nodes.json"), list(
                node("gpu-a01", "4C4C4544-0031-3510-8052-B4C04F4E3331", "a01machine", "10.0.0.11"),
                node("gpu-a02", "4C4C4544-0031-3510-8052-B4C04F4E3332", "a02machine", "10.0.0.12")));

        CliRun init = CliRun.run("inventory", "init", "-f", today.toString(), "--now", NOW);
        assertThat(init.exitCode()).as(init.all()).isZero();
        assertThat(init.out()).contains("kind: \"ConfigMap\"", "name: \"nodegate-inventory\"",
                "namespace: \"nodegate-system\"", "nodegate.io/inventory: \"hosts\"",
                "systemuuid.4c4c4544-0031-3510-8052-b4c04f4e3332: \"gpu-a02\"");

        // later: gpu-a02 is gone, and a host nobody declared registered
        Path later = dir.resolve("later");
        Files.createDirectories(later);
        Files.writeString(later.resolve("inventory.yaml"), init.out());
        Files.writeString(later.resolve("nodes.json"), list(
                node("gpu-a01", "4C4C4544-0031-3510-8052-B4C04F4E3331", "a01machine", "10.0.0.11"),
                node("new-01", "4C4C4544-0031-3510-8052-B4C04F4E3339", "n01machine", "10.0.0.21")));
        CliRun audit = CliRun.run("audit", "-f", later.toString(), "--now", NOW, "-o", "json");
        assertThat(audit.exitCode()).as(audit.all()).isEqualTo(1);
        JsonNode findings = JSON.readTree(audit.out()).get("findings");
        assertThat(findings).anySatisfy(f -> {
            assertThat(f.get("code").asString()).isEqualTo("NG112");
            assertThat(f.get("nodes").get(0).asString()).isEqualTo("new-01");
        }).anySatisfy(f -> {
            assertThat(f.get("code").asString()).isEqualTo("NG113");
            assertThat(f.get("nodes").get(0).asString()).isEqualTo("gpu-a02");
        });
        assertThat(findings).noneSatisfy(f -> assertThat(f.get("nodes").get(0).asString()).isEqualTo("gpu-a01"));
    }

    @Test
    void anInventoryNoConfigMapHoldsIsRefusedBeforeAnythingIsPrinted() throws Exception {
        Path fits = dir.resolve("fits");
        Files.createDirectories(fits);
        Files.writeString(fits.resolve("nodes.json"), FleetNodes.nodeList(3000));
        CliRun ok = CliRun.run("inventory", "init", "-f", fits.toString(), "--now", NOW);
        assertThat(ok.exitCode()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("host.gpu-node-02999: ");

        // a thousand more: past the 1 MiB a ConfigMap may hold; the API server would refuse it, so nodegate does first
        Path large = dir.resolve("large");
        Files.createDirectories(large);
        Files.writeString(large.resolve("nodes.json"), FleetNodes.nodeList(4000));
        CliRun refused = CliRun.run("inventory", "init", "-f", large.toString(), "--now", NOW);
        assertThat(refused.exitCode()).as(refused.all()).isEqualTo(5);
        assertThat(refused.out()).isEmpty();
        assertThat(refused.err()).contains("the inventory of 4000 hosts is ", " bytes, and a ConfigMap holds at most "
                + "1048576", "Nothing was printed or written", "How large it can be");
        assertThat(refused.err()).containsPattern("about 3[0-9]{3} hosts of these sizes fit");
    }

    @Test
    void applyCreatesItOnceAndReplacesOnlyWhenAsked() {
        try (ApiTestServer api = ApiTestServer.start()) {
            api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build(),
                    apiNode("gpu-a01", "4c4c4544-0031-3510-8052-b4c04f4e3331"));
            Path kc = api.writeKubeconfig(dir.resolve("kc"), "lab");

            CliRun first = CliRun.run("inventory", "init", "--apply", "--kubeconfig", kc.toString(), "-o", "table");
            assertThat(first.exitCode()).as(first.all()).isZero();
            assertThat(first.out()).contains("created ConfigMap nodegate-system/nodegate-inventory (1 host(s))");
            ConfigMap stored = api.client().configMaps().inNamespace("nodegate-system").withName("nodegate-inventory").get();
            assertThat(stored.getData()).containsKey("host.gpu-a01")
                    .containsEntry("systemuuid.4c4c4544-0031-3510-8052-b4c04f4e3331", "gpu-a01");
            assertThat(stored.getMetadata().getLabels()).containsEntry("nodegate.io/inventory", "hosts");

            api.create(apiNode("gpu-a02", "4c4c4544-0031-3510-8052-b4c04f4e3332"));
            CliRun again = CliRun.run("inventory", "init", "--apply", "--kubeconfig", kc.toString());
            assertThat(again.exitCode()).as(again.all()).isNotZero();
            assertThat(again.err()).contains("exists", "--replace", "nothing written");
            assertThat(api.client().configMaps().inNamespace("nodegate-system").withName("nodegate-inventory").get()
                    .getData()).doesNotContainKey("host.gpu-a02");

            CliRun replaced = CliRun.run("inventory", "init", "--apply", "--replace", "--kubeconfig", kc.toString(),
                    "-o", "table");
            assertThat(replaced.exitCode()).as(replaced.all()).isZero();
            assertThat(api.client().configMaps().inNamespace("nodegate-system").withName("nodegate-inventory").get()
                    .getData()).containsKey("host.gpu-a02");

            assertThat(CliRun.run("inventory", "init", "--replace", "--kubeconfig", kc.toString()).exitCode())
                    .isEqualTo(2);
        }
    }

    private static Node apiNode(String name, String uuid) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withNewNodeInfo().withSystemUUID(uuid).withMachineID(name + "machine").endNodeInfo()
                .endStatus().build();
    }
}
