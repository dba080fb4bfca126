package io.nodegate.model;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.nodegate.testing.NodeFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

class NodeInventoryTest {

    @Test
    void initTakesTodaysNodesWithTheirIdentitiesRolesAndAddress() {
        var nodes = List.of(
                node("gpu-a01").systemUuid("4C4C4544-0031-3510-8052-B4C04F4E3332").machineId("9f2e")
                        .role("burnin").internalIp("10.0.0.11").build(),
                node("odd").systemUuid("00000000-0000-0000-0000-000000000000").machineId("abcd").build());
        NodeInventory inv = NodeInventory.of(nodes);
        Map<String, String> data = inv.data();
        assertThat(data).containsEntry("host.gpu-a01", "{\"name\":\"gpu-a01\",\"systemUUID\":"
                + "\"4c4c4544-0031-3510-8052-b4c04f4e3332\",\"machineID\":\"9f2e\",\"roles\":[\"burnin\"],"
                + "\"internalIP\":\"10.0.0.11\"}");
        assertThat(data).containsEntry("systemuuid.4c4c4544-0031-3510-8052-b4c04f4e3332", "gpu-a01")
                .containsEntry("machineid.9f2e", "gpu-a01").containsEntry("machineid.abcd", "odd");
        // an all-zero UUID identifies nothing: no index key, no systemUUID in the entry
        assertThat(data.keySet()).noneMatch(k -> k.startsWith("systemuuid.0000"));
        assertThat(NodeInventory.parse(data)).isEqualTo(inv);
    }

    @Test
    void aDamagedEntryIsNamedAndLeftOutNeverThrown() {
        NodeInventory inv = NodeInventory.parse(Map.of(
                "host.a", "{not json",
                "host.b", "{\"name\":\"c\",\"systemUUID\":\"1234\"}",
                "host.d", "{\"name\":\"d\",\"systemUUID\":\"0000\"}",
                "host.e", "{\"name\":\"e\",\"machineID\":\"beef\",\"roles\":[\"worker\"]}"));
        assertThat(inv.hosts()).extracting(NodeInventory.Host::name).containsExactly("e");
        assertThat(inv.problems()).hasSize(3)
                .anySatisfy(p -> assertThat(p).contains("host.a"))
                .anySatisfy(p -> assertThat(p).contains("host.b", "its name is c"))
                .anySatisfy(p -> assertThat(p).contains("host.d", "neither a systemUUID nor a machineID"));
    }
}
