package io.nodegate.source.dump;

import io.nodegate.InputException;
import io.nodegate.model.ClusterState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The shapes a streamed dump must read the same as a whole-file parse would, and the ones it must refuse. */
class DumpStreamingTest {

    private static final String NOW = "2026-10-19T06:10:00Z";

    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text.replace('\'', '"'));
        return f;
    }

    private static String node(String name, boolean withKind) {
        return "{" + (withKind ? "'apiVersion':'v1','kind':'Node'," : "") + "'metadata':{'name':'" + name
                + "','uid':'u-" + name + "','managedFields':[{'manager':'kubelet'}]},'status':{'images':[{'names':['x']}],"
                + "'nodeInfo':{'bootID':'b','systemUUID':'s'},'conditions':[{'type':'Ready','status':'True'}]}}";
    }

    /** `kubectl get --raw /api/v1/nodes | jq -S .`: the items carry no kind, and the list's kind comes after them. */
    @Test
    void aRawListWithSortedKeysGetsItsItemsKindFromTheListAtItsEnd() throws IOException {
        Path f = write("raw.json", "{'apiVersion':'v1','items':[" + node("a", false) + "," + node("b", false)
                + "],'kind':'NodeList','metadata':{'resourceVersion':'7'}}");
        ClusterState s = DumpSource.load(List.of(f), NOW);
        assertThat(s.nodes()).extracting(n -> n.name()).containsExactly("a", "b");
        assertThat(s.nodes().get(0).systemInfo().bootId()).isEqualTo("b");
    }

    @Test
    void anItemsArrayOutsideAListIsAnInputErrorNotSilentlyIgnored() throws IOException {
        Path f = write("noKind.json", "{'items':[" + node("a", true) + "]}");
        assertThatThrownBy(() -> DumpSource.load(List.of(f), NOW)).isInstanceOf(InputException.class)
                .hasMessageContaining(f.toString())
                .hasMessageContaining("an object without kind holds an items array");
        // kind first and not a List: an object like any other (here an unknown kind, ignored with a note)
        Path g = write("widget.json", "{'kind':'Widget','items':[1]}\n" + node("n", true));
        assertThat(DumpSource.load(List.of(g), NOW).notes())
                .contains("ignored 1 object(s) of kind Widget (nodegate does not read them)");
    }

    @Test
    void aFileCutInsideTheItemsFailsTheWholeReadNamingWhere() throws IOException {
        String whole = "{'apiVersion':'v1','items':[" + node("a", true) + "," + node("b", true) + "],'kind':'List'}";
        Path f = write("cut.json", whole.substring(0, whole.length() - 40));
        assertThatThrownBy(() -> DumpSource.load(List.of(f), NOW)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(f + ": truncated JSON at line 1, column ");
    }

    /** YAML goes through the same streaming reader: several documents, a List among them, skip rules applied. */
    @Test
    void yamlDocumentsStreamThroughTheSameReader() throws IOException {
        Path f = dir.resolve("dump.yaml");
        Files.writeString(f, """
                apiVersion: v1
                kind: List
                items:
                - apiVersion: v1
                  kind: Node
                  metadata:
                    name: y1
                    labels: {kubernetes.io/hostname: 12}
                  status:
                    images: [{names: [x]}]
                ---
                ---
                apiVersion: v1
                kind: Secret
                metadata: {name: y1.node-password.rke2, namespace: kube-system}
                type: rke2.cattle.io/node-password
                data: {hash: VE9QU0VDUkVU}
                """);
        ClusterState s = DumpSource.load(List.of(f), NOW);
        assertThat(s.nodes()).singleElement().satisfies(n -> assertThat(n.labels()).containsEntry("kubernetes.io/hostname", "12"));
        assertThat(s.nodePasswordSecrets()).singleElement().satisfies(sec -> assertThat(sec.name())
                .isEqualTo("y1.node-password.rke2"));
        assertThat(s.toString()).doesNotContain("VE9QU0VDUkVU");
    }
}
