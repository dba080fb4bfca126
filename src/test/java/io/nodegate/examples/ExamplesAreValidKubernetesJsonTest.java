package io.nodegate.examples;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.source.kube.RawSnapshot;
import io.nodegate.source.kube.StateAssembler;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example snapshots are what users run first and what the README explains: they must be real kubectl
 * JSON (fabric8 reads them as a kubectl List), must never carry Secret data, and must say what their
 * STORY.md says (the times and identities the expected findings depend on).
 */
class ExamplesAreValidKubernetesJsonTest {

    static final Path EXAMPLES = Path.of("examples");

    /** File of a `nodegate collect` directory, and the kind each of its items must have. */
    static final Map<String, String> FILES = Map.of(
            "nodes.json", "Node",
            "node-leases.json", "Lease",
            "node-password-secrets.json", "Secret",
            "csinodes.json", "CSINode",
            "kubernetes-endpointslices.json", "EndpointSlice",
            "daemonsets.json", "DaemonSet",
            "cattle-system-jobs.json", "Job",
            "kube-system-leases.json", "Lease");

    /** Every directory in the `nodegate collect` layout: examples/<name>/ and examples/split-brain/<side>/. */
    static Stream<Path> collections() throws IOException {
        try (Stream<Path> walk = Files.walk(EXAMPLES, 2)) {
            List<Path> found = walk.filter(d -> Files.isRegularFile(d.resolve("collected.json"))).sorted().toList();
            assertThat(found).extracting(p -> EXAMPLES.relativize(p).toString().replace('\\', '/'))
                    .contains("cluster-a-batch-stop", "cluster-a-renamed-rejoin", "healthy", "lab-duplicate-ip",
                            "split-brain/original-side", "split-brain/separated-side", "k3s-six-nodes");
            return found.stream();
        }
    }

    // the cluster A files are large; each is parsed once per run (the parsed objects are only read)
    static final Map<Path, KubernetesList> LISTS = new ConcurrentHashMap<>();
    static final Map<Path, JsonNode> TREES = new ConcurrentHashMap<>();

    static KubernetesList list(Path dir, String file) throws IOException {
        Path path = dir.resolve(file);
        KubernetesList cached = LISTS.get(path);
        if (cached == null) {
            try (InputStream in = Files.newInputStream(path)) {
                cached = Serialization.unmarshal(in, KubernetesList.class);
            }
            LISTS.put(path, cached);
        }
        return cached;
    }

    static JsonNode tree(Path file) throws IOException {
        JsonNode cached = TREES.get(file);
        if (cached == null) {
            cached = Serialization.jsonMapper().readTree(Files.readString(file));
            TREES.put(file, cached);
        }
        return cached;
    }

    @SuppressWarnings("unchecked")
    static <T extends HasMetadata> Map<String, T> byName(Path dir, String file, Class<T> type) throws IOException {
        return list(dir, file).getItems().stream().map(o -> {
            assertThat(o).as("%s in %s", o.getMetadata().getName(), file).isInstanceOf(type);
            return (T) o;
        }).collect(Collectors.toMap(o -> o.getMetadata().getName(), Function.identity()));
    }

    static Instant time(String text) {
        return OffsetDateTime.parse(text).toInstant();
    }

    /** collected.json's "absent": optional APIs the cluster proved absent; their files are not written. */
    static Set<String> absent(Path dir) throws IOException {
        return tree(dir.resolve("collected.json")).path("absent").values().stream().map(JsonNode::asString)
                .collect(Collectors.toSet());
    }

    static boolean written(Path dir, String file) throws IOException {
        boolean absentApi = file.equals("cattle-system-jobs.json") && absent(dir).contains("cattle-system-jobs")
                || file.equals("csinodes.json") && absent(dir).contains("csinodes");
        assertThat(Files.exists(dir.resolve(file))).as("%s written unless proven absent", file).isEqualTo(!absentApi);
        return !absentApi;
    }

    @ParameterizedTest
    @MethodSource("collections")
    void everyFileIsAKubectlListOfTheRightKind(Path dir) throws IOException {
        Map<String, String> files = new java.util.HashMap<>(FILES);
        boolean pods = tree(dir.resolve("collected.json")).path("pods").asBoolean(false);
        assertThat(Files.exists(dir.resolve("pods.json"))).as("pods.json iff collected with pods").isEqualTo(pods);
        if (pods) {
            files.put("pods.json", "Pod");
        }
        for (var file : files.entrySet()) {
            if (!written(dir, file.getKey())) {
                continue;
            }
            JsonNode raw = tree(dir.resolve(file.getKey()));
            assertThat(raw.path("kind").asString()).as(file.getKey()).isEqualTo("List");
            assertThat(raw.path("apiVersion").asString()).isEqualTo("v1");
            assertThat(raw.path("metadata").path("resourceVersion").asString()).isEmpty();
            KubernetesList parsed = list(dir, file.getKey());
            assertThat(parsed.getItems()).as(file.getKey()).hasSize(raw.path("items").size());
            assertThat(parsed.getItems()).allSatisfy(item -> {
                assertThat(item.getKind()).isEqualTo(file.getValue());
                assertThat(item.getMetadata().getName()).isNotBlank();
                assertThat(item.getMetadata().getUid()).matches("[0-9a-f-]{36}");
                assertThat(item.getMetadata().getCreationTimestamp()).satisfies(t -> time(t));
            });
        }
        assertThat(list(dir, "nodes.json").getItems()).isNotEmpty();
    }

    @ParameterizedTest
    @MethodSource("collections")
    void collectedJsonRecordsWhenAndWhere(Path dir) throws IOException {
        JsonNode c = tree(dir.resolve("collected.json"));
        assertThat(c.path("kind").asString()).isEqualTo("NodegateCollection");
        assertThat(c.path("collectedAt").asString()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        Instant collected = time(c.path("collectedAt").asString());
        assertThat(c.path("server").asString()).matches("https://[0-9.]+:6443");
        assertThat(c.path("serverVersion").asString()).matches("v1\\.\\d+\\.\\d+(\\+(rke2r|k3s)\\d+)?");
        assertThat(c.path("absent").isArray()).isTrue();
        // nothing in a snapshot may be newer than the moment it was taken
        for (Lease lease : byName(dir, "node-leases.json", Lease.class).values()) {
            assertThat(lease.getSpec().getRenewTime().toInstant()).isBefore(collected);
        }
        for (Node node : byName(dir, "nodes.json", Node.class).values()) {
            assertThat(time(node.getMetadata().getCreationTimestamp())).isBefore(collected);
        }
    }

    @ParameterizedTest
    @MethodSource("collections")
    void noSecretCarriesData(Path dir) throws IOException {
        for (JsonNode secret : tree(dir.resolve("node-password-secrets.json")).path("items").values()) {
            assertThat(secret.has("data")).as(secret.path("metadata").path("name").asString()).isFalse();
            assertThat(secret.has("stringData")).isFalse();
        }
        for (Secret s : byName(dir, "node-password-secrets.json", Secret.class).values()) {
            assertThat(s.getMetadata().getName()).matches("[a-z0-9.-]+\\.node-password\\.(rke2|k3s)");
            assertThat(s.getType()).isIn("Opaque", "rke2.cattle.io/node-password", "k3s.cattle.io/node-password");
        }
    }

    @ParameterizedTest
    @MethodSource("collections")
    void leasesAreKubeletHeartbeatsOwnedByTheirNode(Path dir) throws IOException {
        Map<String, Node> nodes = byName(dir, "nodes.json", Node.class);
        Map<String, Lease> leases = byName(dir, "node-leases.json", Lease.class);
        // none of the stories has a Lease without its Node or a Node without its Lease
        assertThat(leases.keySet()).isEqualTo(nodes.keySet());
        for (Lease lease : leases.values()) {
            String name = lease.getMetadata().getName();
            assertThat(lease.getMetadata().getNamespace()).isEqualTo("kube-node-lease");
            assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(name);
            assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(40);
            OwnerReference owner = lease.getMetadata().getOwnerReferences().get(0);
            assertThat(owner.getKind()).isEqualTo("Node");
            assertThat(owner.getName()).isEqualTo(name);
            assertThat(owner.getUid()).isEqualTo(nodes.get(name).getMetadata().getUid());
        }
        // MicroTime: kubectl prints renewTime with exactly six fractional digits
        for (JsonNode l : tree(dir.resolve("node-leases.json")).path("items").values()) {
            assertThat(l.path("spec").path("renewTime").asString())
                    .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
        }
    }

    @ParameterizedTest
    @MethodSource("collections")
    void secretOwnersPointAtTheNodeOfTheSameName(Path dir) throws IOException {
        Map<String, Node> nodes = byName(dir, "nodes.json", Node.class);
        for (Secret s : byName(dir, "node-password-secrets.json", Secret.class).values()) {
            List<OwnerReference> owners = s.getMetadata().getOwnerReferences();
            if (owners == null || owners.isEmpty()) {
                assertThat(s.getType()).as("only the older, untyped Secrets lack an owner").isEqualTo("Opaque");
                continue;
            }
            String node = s.getMetadata().getName().replaceFirst("\\.node-password\\.(rke2|k3s)$", "");
            assertThat(owners.get(0).getName()).isEqualTo(node);
            assertThat(owners.get(0).getUid()).isEqualTo(nodes.get(node).getMetadata().getUid());
        }
    }

    @SuppressWarnings("unchecked")
    static <T> List<T> items(Path dir, String file) throws IOException {
        return (List<T>) (List<?>) list(dir, file).getItems();
    }

    /** The model mapping every detector reads through must take each example whole, with nothing to complain about. */
    @ParameterizedTest
    @MethodSource("collections")
    void assemblesIntoAClusterStateWithoutNotes(Path dir) throws IOException {
        JsonNode c = tree(dir.resolve("collected.json"));
        // every file the kinds table says `collect` writes, read back as that kind (absent when not written)
        java.util.Map<io.nodegate.source.kube.ReadKind<?, ?>, List<? extends io.fabric8.kubernetes.api.model.HasMetadata>>
                objects = new java.util.LinkedHashMap<>();
        for (io.nodegate.source.kube.ReadKind<?, ?> kind : io.nodegate.source.kube.Kinds.ALL) {
            if (Files.exists(dir.resolve(kind.dumpFile()))) {
                objects.put(kind, items(dir, kind.dumpFile()));
            }
        }
        RawSnapshot raw = new RawSnapshot(time(c.path("collectedAt").asString()), dir.toString(),
                c.path("context").asString(), c.path("server").asString(), c.path("serverVersion").asString(),
                objects, List.of());
        ClusterState state = StateAssembler.assemble(raw);
        assertThat(state.notes()).isEmpty();
        assertThat(state.nodes()).hasSameSizeAs(raw.nodes());
        assertThat(state.nodeLeases()).allSatisfy(l -> assertThat(l.renewTime()).isNotNull());
        assertThat(state.nodePasswordSecrets()).hasSameSizeAs(raw.kubeSystemSecrets());
        assertThat(state.nodes()).allSatisfy(n -> {
            assertThat(n.created()).isNotNull();
            assertThat(n.systemInfo().systemUuid()).isNotBlank();
            assertThat(n.internalIps()).hasSize(1);
            assertThat(n.readyStatus()).isIn("True", "Unknown");
        });
        List<String> servers = state.nodes().stream().filter(NodeInfo::isServer).map(NodeInfo::name).toList();
        assertThat(servers).isNotEmpty();
        assertThat(state.apiEndpoints().addresses()).isNotEmpty().allSatisfy(ip ->
                assertThat(state.nodes()).anyMatch(n -> n.internalIps().contains(ip) && n.isServer() && n.isReady()));
        assertThat(state.cattleJobs().present()).isEqualTo(!absent(dir).contains("cattle-system-jobs"));
        assertThat(state.pods().present()).isEqualTo(Files.exists(dir.resolve("pods.json")));
        if (state.pods().present()) {
            assertThat(state.pods().items()).isNotEmpty().allSatisfy(p -> {
                assertThat(p.nodeName()).as("%s/%s bound", p.namespace(), p.name()).isIn(
                        state.nodes().stream().map(NodeInfo::name).toList());
                assertThat(p.phase()).isIn("Running", "Succeeded");
            });
        }
    }

    /** The node lifecycle controller's arithmetic, which NG101/NG103 timing explanations rely on. */
    @ParameterizedTest
    @MethodSource("collections")
    void unknownNodesFollowTheNodeLifecycleController(Path dir) throws IOException {
        Map<String, Lease> leases = byName(dir, "node-leases.json", Lease.class);
        for (Node node : byName(dir, "nodes.json", Node.class).values()) {
            var ready = node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()))
                    .findFirst().orElseThrow();
            List<Taint> taints = node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
            boolean unreachable = taints.stream().anyMatch(t -> "node.kubernetes.io/unreachable".equals(t.getKey()));
            if (!"Unknown".equals(ready.getStatus())) {
                assertThat(unreachable).as(node.getMetadata().getName()).isFalse();
                continue;
            }
            assertThat(ready.getReason()).isEqualTo("NodeStatusUnknown");
            Instant stopped = leases.get(node.getMetadata().getName()).getSpec().getRenewTime().toInstant();
            Instant unknownAt = time(ready.getLastTransitionTime());
            assertThat(Duration.between(stopped, unknownAt)).as("grace 50 s + one 5 s monitor period")
                    .isBetween(Duration.ofSeconds(50), Duration.ofSeconds(55));
            Taint noSchedule = taints.stream().filter(t -> t.getKey().endsWith("/unreachable")
                    && "NoSchedule".equals(t.getEffect())).findFirst().orElseThrow();
            Taint noExecute = taints.stream().filter(t -> t.getKey().endsWith("/unreachable")
                    && "NoExecute".equals(t.getEffect())).findFirst().orElseThrow();
            assertThat(time(noSchedule.getTimeAdded())).isEqualTo(unknownAt);
            assertThat(time(noExecute.getTimeAdded())).isAfterOrEqualTo(unknownAt);
            var network = node.getStatus().getConditions().stream()
                    .filter(c -> "NetworkUnavailable".equals(c.getType())).findFirst().orElseThrow();
            assertThat(network.getStatus()).as("NetworkUnavailable keeps its last value").isEqualTo("False");
        }
    }

    @Test
    void batchStopShowsTheSeedsFourLeasesAndTheRateLimitedEvictionTaints() throws IOException {
        Path dir = EXAMPLES.resolve("cluster-a-batch-stop");
        Map<String, Lease> leases = byName(dir, "node-leases.json", Lease.class);
        Map<String, Node> nodes = byName(dir, "nodes.json", Node.class);
        List<String> batch = List.of("gpu-a07", "gpu-a08", "gpu-a09", "gpu-a10");
        List<Instant> stops = batch.stream().map(n -> leases.get(n).getSpec().getRenewTime().toInstant()).sorted().toList();
        assertThat(Duration.between(stops.get(0), stops.get(3))).isLessThanOrEqualTo(Duration.ofSeconds(12));
        assertThat(leases.get("gpu-a07").getSpec().getRenewTime().toInstant())
                .isEqualTo(Instant.parse("2026-10-22T05:23:42.676430Z"));
        // NoExecute through the zone limiter: 0.1/s with burst 1 -> 10 s apart
        List<Instant> noExecute = batch.stream().map(n -> nodes.get(n).getSpec().getTaints().stream()
                .filter(t -> "NoExecute".equals(t.getEffect())).findFirst().orElseThrow())
                .map(t -> time(t.getTimeAdded())).sorted().toList();
        for (int i = 1; i < noExecute.size(); i++) {
            assertThat(Duration.between(noExecute.get(i - 1), noExecute.get(i))).isEqualTo(Duration.ofSeconds(10));
        }
        // no other pair of stopped Leases is within the 30 s batch window
        Instant collected = time(tree(dir.resolve("collected.json")).path("collectedAt").asString());
        List<Instant> otherStops = leases.values().stream().filter(l -> !batch.contains(l.getMetadata().getName()))
                .map(l -> l.getSpec().getRenewTime().toInstant())
                .filter(t -> Duration.between(t, collected).compareTo(Duration.ofSeconds(50)) > 0).sorted().toList();
        assertThat(otherStops).hasSize(4);
        for (int i = 1; i < otherStops.size(); i++) {
            assertThat(Duration.between(otherStops.get(i - 1), otherStops.get(i))).isGreaterThan(Duration.ofSeconds(30));
        }
        JsonNode failed = tree(dir.resolve("cattle-system-jobs.json")).path("items").values().stream()
                .filter(j -> j.path("status").path("failed").asLong(0) > 0).findFirst().orElseThrow();
        assertThat(failed.path("metadata").path("name").asString())
                .startsWith("apply-system-agent-upgrader-on-gpu-a07-with-").hasSizeLessThanOrEqualTo(63);
    }

    @Test
    void renamedHostsKeepTheirFirmwareIdentityButStartBare() throws IOException {
        Path dir = EXAMPLES.resolve("cluster-a-renamed-rejoin");
        Map<String, Node> nodes = byName(dir, "nodes.json", Node.class);
        Instant collected = time(tree(dir.resolve("collected.json")).path("collectedAt").asString());
        Map<String, String> renamed = Map.of("new-01", "gpu-a02", "new-02", "gpu-a01", "new-03", "gpu-a04");
        for (var e : renamed.entrySet()) {
            Node fresh = nodes.get(e.getKey());
            Node old = nodes.get(e.getValue());
            assertThat(fresh.getStatus().getNodeInfo().getSystemUUID()).isEqualTo(old.getStatus().getNodeInfo().getSystemUUID());
            assertThat(fresh.getStatus().getNodeInfo().getMachineID()).isEqualTo(old.getStatus().getNodeInfo().getMachineID());
            assertThat(fresh.getStatus().getNodeInfo().getBootID()).isNotEqualTo(old.getStatus().getNodeInfo().getBootID());
            assertThat(fresh.getMetadata().getLabels().keySet()).noneMatch(k -> k.startsWith("node-role.kubernetes.io/"));
            assertThat(fresh.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
            assertThat(Duration.between(time(fresh.getMetadata().getCreationTimestamp()), collected))
                    .isLessThan(Duration.ofHours(72));
            assertThat(old.getSpec().getUnschedulable()).isTrue();
        }
        // exactly these three pairs share a systemUUID
        Map<String, Set<String>> byUuid = nodes.values().stream().collect(Collectors.groupingBy(
                n -> n.getStatus().getNodeInfo().getSystemUUID(),
                Collectors.mapping(n -> n.getMetadata().getName(), Collectors.toCollection(TreeSet::new))));
        assertThat(byUuid.values().stream().filter(s -> s.size() > 1))
                .containsExactlyInAnyOrder(Set.of("gpu-a01", "new-02"), Set.of("gpu-a02", "new-01"),
                        Set.of("gpu-a04", "new-03"));
    }

    @Test
    void healthyHasEverythingAnAuditChecksInPlace() throws IOException {
        Path dir = EXAMPLES.resolve("healthy");
        Map<String, Node> nodes = byName(dir, "nodes.json", Node.class);
        Map<String, Secret> secrets = byName(dir, "node-password-secrets.json", Secret.class);
        Instant collected = time(tree(dir.resolve("collected.json")).path("collectedAt").asString());
        assertThat(secrets.keySet()).isEqualTo(nodes.keySet().stream().map(n -> n + ".node-password.rke2")
                .collect(Collectors.toSet()));
        Set<String> ips = new TreeSet<>();
        for (Node n : nodes.values()) {
            assertThat(n.getStatus().getConditions()).filteredOn(c -> "Ready".equals(c.getType()))
                    .singleElement().satisfies(c -> assertThat(c.getStatus()).isEqualTo("True"));
            assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
            assertThat(n.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.34.3+rke2r3");
            String ip = n.getStatus().getAddresses().stream().filter(a -> "InternalIP".equals(a.getType()))
                    .findFirst().orElseThrow().getAddress();
            assertThat(ips.add(ip)).as("InternalIP %s unique", ip).isTrue();
            // near miss for NG111: no role label, but older than the 72 h window
            assertThat(Duration.between(time(n.getMetadata().getCreationTimestamp()), collected))
                    .isGreaterThan(Duration.ofHours(72));
        }
        for (Lease l : byName(dir, "node-leases.json", Lease.class).values()) {
            assertThat(Duration.between(l.getSpec().getRenewTime().toInstant(), collected))
                    .isLessThan(Duration.ofSeconds(10));
        }
        assertThat(tree(dir.resolve("cattle-system-jobs.json")).path("items").values())
                .allSatisfy(j -> assertThat(j.path("status").path("failed").asLong(0)).isZero());
    }

    /**
     * etcdctl prints member and cluster IDs as bare uint64 numbers, often above Long.MAX_VALUE. The original
     * side, asking every member's client URL, gets cp-node-c's answer from the separated cluster.
     */
    @Test
    void splitBrainEtcdOutputsAreTwoClustersWithBigIntegerIds() throws IOException {
        Path dir = EXAMPLES.resolve("split-brain");
        JsonNode original = tree(dir.resolve("original-side/member-list.json"));
        JsonNode separated = tree(dir.resolve("separated-side/member-list.json"));
        BigInteger originalId = original.path("header").path("cluster_id").bigIntegerValue();
        BigInteger separatedId = separated.path("header").path("cluster_id").bigIntegerValue();
        assertThat(originalId).isNotEqualTo(separatedId);
        assertThat(List.of(originalId, separatedId)).anyMatch(id -> id.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0);
        for (JsonNode list : List.of(original, separated)) {
            assertThat(list.path("header").path("cluster_id").isNumber()).isTrue();
            assertThat(list.path("members").values()).allSatisfy(m -> {
                assertThat(m.path("ID").isNumber()).isTrue();
                assertThat(m.path("ID").bigIntegerValue()).isPositive();
                assertThat(m.path("clientURLs").get(0).asString()).matches("https://192\\.0\\.2\\.\\d+:2379");
            });
        }
        List<String> originalNames = original.path("members").values().stream().map(m -> m.path("name").asString()).toList();
        assertThat(originalNames).hasSize(3);
        assertThat(separated.path("members").values()).singleElement()
                .satisfies(m -> assertThat(originalNames).contains(m.path("name").asString()));
        String separatedUrl = separated.path("members").get(0).path("clientURLs").get(0).asString();

        JsonNode originalStatus = tree(dir.resolve("original-side/endpoint-status.json"));
        assertThat(originalStatus.values()).hasSize(3).allSatisfy(s -> {
            BigInteger id = s.path("Status").path("header").path("cluster_id").bigIntegerValue();
            assertThat(id).isEqualTo(s.path("Endpoint").asString().equals(separatedUrl) ? separatedId : originalId);
        });
        JsonNode separatedStatus = tree(dir.resolve("separated-side/endpoint-status.json"));
        assertThat(separatedStatus.values()).singleElement().satisfies(s -> {
            assertThat(s.path("Status").path("header").path("cluster_id").bigIntegerValue()).isEqualTo(separatedId);
            assertThat(s.path("Status").path("leader").bigIntegerValue())
                    .isEqualTo(s.path("Status").path("header").path("member_id").bigIntegerValue());
        });
    }

    /**
     * Seed 003: solomon is an etcd voter with the apiserver, scheduler and controller-manager disabled, so only
     * ilwon and lemuel are in default/kubernetes; taints show up as running pods (lemuel 6, ilwon 34, solomon 6).
     */
    @Test
    void k3sSixNodesIsSeed003sLayout() throws IOException {
        Path dir = EXAMPLES.resolve("k3s-six-nodes");
        Map<String, Node> nodes = byName(dir, "nodes.json", Node.class);
        assertThat(nodes.keySet()).containsExactlyInAnyOrder("ilwon", "lemuel", "solomon", "david", "isagal", "louise");
        Map<String, String> ip = nodes.values().stream().collect(Collectors.toMap(n -> n.getMetadata().getName(),
                n -> n.getStatus().getAddresses().stream().filter(a -> "InternalIP".equals(a.getType()))
                        .findFirst().orElseThrow().getAddress()));
        assertThat(ip.values()).allMatch(a -> a.startsWith("203.0.113.")).doesNotHaveDuplicates();

        Map<String, String> args = nodes.values().stream().collect(Collectors.toMap(n -> n.getMetadata().getName(),
                n -> n.getMetadata().getAnnotations().get("k3s.io/node-args")));
        var solomon = io.nodegate.detect.controlplane.NodeArgs.parse(args.get("solomon"));
        assertThat(solomon.server()).isTrue();
        assertThat(solomon.disabled()).containsExactlyInAnyOrder(
                io.nodegate.detect.controlplane.ControlPlaneComponent.APISERVER,
                io.nodegate.detect.controlplane.ControlPlaneComponent.SCHEDULER,
                io.nodegate.detect.controlplane.ControlPlaneComponent.CONTROLLER_MANAGER);
        for (String other : List.of("ilwon", "lemuel")) {
            var a = io.nodegate.detect.controlplane.NodeArgs.parse(args.get(other));
            assertThat(a.server()).as(other).isTrue();
            assertThat(a.disabled()).as(other).isEmpty();
        }
        for (String agent : List.of("david", "isagal", "louise")) {
            var a = io.nodegate.detect.controlplane.NodeArgs.parse(args.get(agent));
            assertThat(a.readable() && !a.server()).as(agent).isTrue();
            assertThat(nodes.get(agent).getMetadata().getLabels().keySet())
                    .noneMatch(k -> k.startsWith("node-role.kubernetes.io/"));
            assertThat(nodes.get(agent).getSpec().getTaints()).isNullOrEmpty();
        }
        Map<String, String> taints = Map.of("lemuel", "node-role.kubernetes.io/control-plane=null:NoSchedule",
                "ilwon", "dedicated=management:PreferNoSchedule", "solomon", "dedicated=storage:NoSchedule");
        taints.forEach((node, taint) -> {
            assertThat(nodes.get(node).getSpec().getTaints()).singleElement()
                    .satisfies(t -> assertThat(t.getKey() + "=" + t.getValue() + ":" + t.getEffect()).isEqualTo(taint));
            assertThat(nodes.get(node).getSpec().getUnschedulable()).as("not cordoned").isNotEqualTo(Boolean.TRUE);
        });

        // default/kubernetes: the two apiservers only, port 6443
        JsonNode slice = tree(dir.resolve("kubernetes-endpointslices.json")).path("items").get(0);
        assertThat(slice.path("endpoints").values().stream().map(e -> e.path("addresses").get(0).asString()))
                .containsExactlyInAnyOrder(ip.get("ilwon"), ip.get("lemuel"));
        assertThat(slice.path("ports").get(0).path("port").asInt()).isEqualTo(6443);

        assertThat(byName(dir, "node-password-secrets.json", Secret.class).keySet())
                .isEqualTo(nodes.keySet().stream().map(n -> n + ".node-password.k3s").collect(Collectors.toSet()));
        assertThat(absent(dir)).containsExactly("cattle-system-jobs");

        Map<String, Lease> cp = byName(dir, "kube-system-leases.json", Lease.class);
        assertThat(cp.get("kube-scheduler").getSpec().getHolderIdentity()).matches("ilwon_[0-9a-f-]{36}");
        assertThat(cp.get("kube-controller-manager").getSpec().getHolderIdentity()).matches("lemuel_[0-9a-f-]{36}");

        Map<String, Long> running = tree(dir.resolve("pods.json")).path("items").values().stream()
                .filter(p -> "Running".equals(p.path("status").path("phase").asString()))
                .collect(Collectors.groupingBy(p -> p.path("spec").path("nodeName").asString(), Collectors.counting()));
        assertThat(running).isEqualTo(Map.of("lemuel", 6L, "ilwon", 34L, "solomon", 6L, "david", 34L,
                "isagal", 32L, "louise", 34L));
        // near miss: Succeeded pods are listed and bound, but are not running
        assertThat(tree(dir.resolve("pods.json")).path("items").values())
                .anyMatch(p -> "Succeeded".equals(p.path("status").path("phase").asString())
                        && "ilwon".equals(p.path("spec").path("nodeName").asString()));

        // etcdctl: the seed's three voters, each named on its Node; one cluster, every endpoint answers
        JsonNode members = tree(dir.resolve("member-list.json"));
        Map<String, String> memberOfNode = nodes.values().stream()
                .filter(n -> n.getMetadata().getAnnotations().containsKey("etcd.k3s.cattle.io/node-name"))
                .collect(Collectors.toMap(n -> n.getMetadata().getName(),
                        n -> n.getMetadata().getAnnotations().get("etcd.k3s.cattle.io/node-name")));
        assertThat(members.path("members").values().stream().map(m -> m.path("name").asString()))
                .containsExactly("ilwon-f3f37c02", "solomon-0012157a", "lemuel-64066392")
                .containsExactlyInAnyOrderElementsOf(memberOfNode.values());
        assertThat(members.path("members").values()).allSatisfy(m -> assertThat(m.path("ID").isNumber()).isTrue())
                .anyMatch(m -> m.path("ID").bigIntegerValue().compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0);
        BigInteger clusterId = members.path("header").path("cluster_id").bigIntegerValue();
        JsonNode status = tree(dir.resolve("endpoint-status.json"));
        assertThat(status.values()).hasSize(3).allSatisfy(e -> {
            assertThat(e.path("Status").path("header").path("cluster_id").bigIntegerValue()).isEqualTo(clusterId);
            assertThat(e.path("Endpoint").asString()).matches("https://203\\.0\\.113\\.1[123]:2379");
        });
        assertThat(status.values().stream().map(e -> e.path("Status").path("leader").bigIntegerValue()).distinct())
                .singleElement();
    }
}
