package io.nodegate.source.kube;

import io.nodegate.source.SourceNotes;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.source.kube.ReadKind.Presence;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rows of {@link Kinds}, built by name: what a row says, and a row missing a part is refused by name. */
class ReadKindBuilderTest {

    @Test
    void aRowWithoutItsDumpFileIsRefusedNamingTheRowAndThePart() {
        assertThatThrownBy(() -> ReadKind.builder("nodes-again", Node.class, StateAssembler::node)
                .presence(Presence.REQUIRED).listWhat("LIST nodes").notInInputWhat("Node objects").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ReadKind nodes-again: dumpFile not set");
    }

    @Test
    void theRowsSayWhereTheirObjectsAreAndHowTheyAreKept() {
        assertThat(Kinds.NODES.kind()).isEqualTo("Node");
        assertThat(Kinds.NODES.namespace()).isNull();
        assertThat(Kinds.NODES.labelSelector()).isNull();
        assertThat(Kinds.NODES.absentNote()).isNull();
        assertThat(Kinds.API_ENDPOINT_SLICES.labelSelector()).isEqualTo("kubernetes.io/service-name=kubernetes");
        assertThat(Kinds.API_ENDPOINT_SLICES.scopeText()).isEqualTo("default/kubernetes");
        assertThat(Kinds.DAEMONSETS.allNamespaces()).isTrue();
        assertThat(Kinds.NODE_LEASES.scopeText()).isEqualTo("kube-node-lease/*");
        assertThat(Kinds.CATTLE_JOBS.presence()).isEqualTo(Presence.OPTIONAL_NAMESPACE);
        assertThat(Kinds.CATTLE_JOBS.absentNote()).isEqualTo(SourceNotes.CATTLE_SYSTEM_ABSENT);
        // Secrets: only metadata crosses the wire, and what arrives loses its data at once
        assertThat(Kinds.KUBE_SYSTEM_SECRETS.metadataOnly()).isNotNull();
        assertThat(Kinds.NODES.metadataOnly()).isNull();
        // a ConfigMap in nodegate's namespace that is not a ledger shard keeps only its metadata
        ConfigMap other = new ConfigMapBuilder().withNewMetadata().withName("other").endMetadata()
                .withData(Map.of("k", "v")).build();
        assertThat(Kinds.TOMBSTONES.trim(other).getData()).isNullOrEmpty();
        assertThat(Kinds.NODES.trim(new Node())).isNotNull();
        assertThat(Kinds.ALL).extracting(ReadKind::id).doesNotHaveDuplicates();
        assertThat(Kinds.ALL).extracting(ReadKind::dumpFile).doesNotHaveDuplicates();
    }
}
