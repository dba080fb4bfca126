package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.nodegate.lifecycle.inventory.NodeHolds;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NewcomerHold;
import io.nodegate.model.Tombstone;
import io.nodegate.model.TombstoneBook;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed's case, replayed against an API server: a host removed as gpu-a02 (tombstoned by systemUUID and
 * machineID) reboots under a new name; the pass after its Node appears taints it nodegate.io/unaccepted, Nodes that
 * were there when the watch started are left alone, and accepting it removes the taint and records who.
 */
class NewcomerHolderTest {

    private static final String A02_UUID = "4c4c4544-0031-3510-8052-b4c04f4e3332";
    private static final String A02_MID = "a02a02a02a02a02a02a02a02a02a02a0";

    @TempDir
    Path tmp;

    private static Node node(String name, String uuid, String mid) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewStatus().withNewNodeInfo().withSystemUUID(uuid).withMachineID(mid).endNodeInfo().endStatus()
                .build();
    }

    private static List<?> taints(ApiTestServer api, String name) {
        Node n = api.client().nodes().withName(name).get();
        return n.getSpec() == null || n.getSpec().getTaints() == null ? List.of() : n.getSpec().getTaints();
    }

    @Test
    void aRemovedHostBackUnderANewNameIsHeldAtOnceAndKeptUntilAccepted() throws Exception {
        try (ApiTestServer api = ApiTestServer.start()) {
            TombstoneBook book = TombstoneBook.empty().with(new Tombstone("gpu-a02", "uid-old", A02_UUID, A02_MID,
                    Instant.parse("2026-10-21T06:31:10Z"), "c0ffee", "kim"));
            api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build(),
                    new ConfigMapBuilder().withNewMetadata().withName(TombstoneBook.CONFIGMAP)
                            .withNamespace("nodegate-system").endMetadata().withData(book.data()).build(),
                    node("keep-1", "4c4c4544-0031-3510-8052-b4c04f4e3331", "keep1keep1keep1keep1keep1keep1ke"),
                    // a Node that was there when the watch started: never held by the watch, whatever it is
                    node("odd-1", A02_UUID, "odd1odd1odd1odd1odd1odd1odd1odd1"));
            Path kc = api.writeKubeconfig(tmp.resolve("kc"));
            List<String> log = new ArrayList<>();
            try (KubeConnection connection = KubeConnection.open(kc, null, Duration.ofSeconds(10))) {
                LiveSource live = new LiveSource(connection);
                NewcomerHolder holder = new NewcomerHolder(new NodeHolds(connection.client()), () -> true,
                        NewcomerHold.NO_SCHEDULE, Clock.systemUTC(), log::add);

                assertThat(holder.afterPass(live.load(false))).isEmpty();

                api.create(node("new-01", A02_UUID, A02_MID), node("new-02", "4c4c4544-0031-3510-8052-b4c04f4e3339",
                        "new2new2new2new2new2new2new2new2"));
                ClusterState after = live.load(false);
                assertThat(holder.afterPass(after)).containsExactly("new-01");
                Node held = api.client().nodes().withName("new-01").get();
                assertThat(held.getSpec().getTaints()).singleElement().satisfies(t -> {
                    assertThat(t.getKey()).isEqualTo("nodegate.io/unaccepted");
                    assertThat(t.getEffect()).isEqualTo("NoSchedule");
                });
                assertThat(log).anySatisfy(l -> assertThat(l).contains("held newcomer Node new-01",
                        "systemUUID is tombstoned: host gpu-a02"));
                // a newcomer nothing holds (no inventory declared, its own IDs) and the Nodes of the first pass
                assertThat(taints(api, "new-02")).isEmpty();
                assertThat(taints(api, "odd-1")).isEmpty();

                // later passes leave it held: the taint stays until a person accepts it
                assertThat(holder.afterPass(live.load(false))).isEmpty();
                var now = live.load(false).node("new-01").orElseThrow();
                assertThat(NewcomerHold.held(now)).isTrue();

                new NodeHolds(connection.client()).accept(now, "kim via kubeconfig user ops",
                        Instant.parse("2026-10-26T08:00:00Z"));
                Node accepted = api.client().nodes().withName("new-01").get();
                assertThat(taints(api, "new-01")).isEmpty();
                assertThat(accepted.getMetadata().getAnnotations())
                        .containsEntry(NewcomerHold.ACCEPTED_BY, "kim via kubeconfig user ops")
                        .containsEntry(NewcomerHold.ACCEPTED_AT, "2026-10-26T08:00:00Z");
                // and a replica that starts now does not hold it again: it is accepted
                assertThat(holder.afterPass(live.load(false))).isEmpty();
            }
        }
    }

    /**
     * `watch --hold-effect NoExecute`: the newcomer is held with NoExecute, which also evicts pods that bound before
     * the taint; accepting it removes the hold whatever its effect and leaves the Node's other NoExecute taint.
     */
    @Test
    void withNoExecuteTheNewcomerIsHeldNoExecuteAndAcceptRemovesThatHoldOnly() throws Exception {
        try (ApiTestServer api = ApiTestServer.start()) {
            TombstoneBook book = TombstoneBook.empty().with(new Tombstone("gpu-a02", "uid-old", A02_UUID, A02_MID,
                    Instant.parse("2026-10-21T06:31:10Z"), "c0ffee", "kim"));
            api.create(new NamespaceBuilder().withNewMetadata().withName("nodegate-system").endMetadata().build(),
                    new ConfigMapBuilder().withNewMetadata().withName(TombstoneBook.CONFIGMAP)
                            .withNamespace("nodegate-system").endMetadata().withData(book.data()).build());
            Path kc = api.writeKubeconfig(tmp.resolve("kc"));
            List<String> log = new ArrayList<>();
            try (KubeConnection connection = KubeConnection.open(kc, null, Duration.ofSeconds(10))) {
                LiveSource live = new LiveSource(connection);
                NewcomerHolder holder = new NewcomerHolder(new NodeHolds(connection.client()), () -> true,
                        NewcomerHold.NO_EXECUTE, Clock.systemUTC(), log::add);
                assertThat(holder.afterPass(live.load(false))).isEmpty();

                // the host comes back with a NoExecute taint of its own (its config's --register-with-taints)
                Node back = node("new-01", A02_UUID, A02_MID);
                back.setSpec(new io.fabric8.kubernetes.api.model.NodeSpecBuilder().addNewTaint()
                        .withKey("example.com/dedicated").withValue("batch").withEffect("NoExecute").endTaint().build());
                api.create(back);
                assertThat(holder.afterPass(live.load(false))).containsExactly("new-01");
                Node held = api.client().nodes().withName("new-01").get();
                assertThat(held.getSpec().getTaints()).extracting(t -> t.getKey() + ":" + t.getEffect())
                        .containsExactly("example.com/dedicated:NoExecute", "nodegate.io/unaccepted:NoExecute");
                assertThat(log).anySatisfy(l -> assertThat(l).contains("held newcomer Node new-01",
                        "(taint nodegate.io/unaccepted:NoExecute)"));

                var now = live.load(false).node("new-01").orElseThrow();
                assertThat(NewcomerHold.held(now)).isTrue();
                new NodeHolds(connection.client()).accept(now, "kim via kubeconfig user ops",
                        Instant.parse("2026-10-26T08:00:00Z"));
                Node accepted = api.client().nodes().withName("new-01").get();
                assertThat(accepted.getSpec().getTaints()).extracting(t -> t.getKey() + ":" + t.getEffect() + "="
                        + t.getValue()).containsExactly("example.com/dedicated:NoExecute=batch");
                assertThat(accepted.getMetadata().getAnnotations())
                        .containsEntry(NewcomerHold.ACCEPTED_BY, "kim via kubeconfig user ops");
            }
        }
    }

    @Test
    void theWatchRefusesAnotherHoldEffectBeforeConnecting() {
        io.nodegate.testing.CliRun bad = io.nodegate.testing.CliRun.run("watch", "--hold-effect", "NoEvict",
                "--kubeconfig", tmp.resolve("absent.yaml").toString());
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--hold-effect must be NoSchedule or NoExecute, got 'NoEvict'");
    }
}
