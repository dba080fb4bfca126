package io.nodegate.source.kube;

import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.Node;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.FaultProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The field's lying LIST answers, end to end through the CLI over real HTTP: a proxy (FaultProxy) between nodegate
 * and the API test server answers one LIST with a well-formed lie. `audit` of a 520-node cluster (two pages of 500)
 * whose first or second page lies exits 3 instead of reporting 0 or 500 Nodes; an honest cluster without Nodes is an
 * input error unless --allow-empty says so; `fleet` with a lying cluster exits 3. The gate's own lying LISTs are in
 * {@link io.nodegate.lifecycle.FaultMatrixTest}, its batch check in
 * {@link io.nodegate.lifecycle.gate.BatchStopGateTest}, its fleet check in
 * {@link io.nodegate.lifecycle.gate.GateFleetScenarioTest}.
 */
class LyingListAnswersTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NODES_PAGE_1 = "GET /api/v1/nodes?limit=500";

    @TempDir
    Path tmp;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private ApiTestServer server() {
        ApiTestServer api = ApiTestServer.start();
        open.add(api);
        return api;
    }

    private FaultProxy proxy(ApiTestServer api) throws IOException {
        FaultProxy proxy = new FaultProxy(api.url());
        open.add(proxy);
        return proxy;
    }

    private Path kubeconfig(String context, String url) {
        return ApiTestServer.writeKubeconfig(tmp.resolve(context + ".yaml"), context, url);
    }

    private static Node node(String name, int i) {
        return SeedCluster.node(name, "10.1." + (i / 250) + "." + (i % 250 + 1), "True", false,
                Map.of("node-role.kubernetes.io/worker", "true"), "boot-" + name, "uuid-" + name, 0,
                Instant.now(), null);
    }

    private static boolean firstNodesPage(String call) {
        return call.startsWith(NODES_PAGE_1) && !call.contains("continue=");
    }

    private static boolean secondNodesPage(String call) {
        return call.startsWith(NODES_PAGE_1) && call.contains("continue=");
    }

    @Test
    void aTwoPageAuditWhereEitherPageLiesExits3NamingTheServerAndThePage() throws Exception {
        ApiTestServer api = server();
        for (int i = 0; i < 520; i++) {
            api.create(node(String.format("w-%03d", i), i));
        }
        FaultProxy proxy = proxy(api);
        Path kc = kubeconfig("big", proxy.url());

        CliRun clean = CliRun.run("audit", "--kubeconfig", kc.toString(), "-o", "json");
        assertThat(clean.exitCode()).as(clean.err()).isIn(0, 1);
        assertThat(JSON.readTree(clean.out()).path("nodes").size()).isEqualTo(520);
        assertThat(proxy.log()).filteredOn(LyingListAnswersTest::secondNodesPage).hasSize(1);

        record Lie(String page, java.util.function.Predicate<String> which, FaultProxy.Fault fault, String said) {
        }
        List<Lie> lies = List.of(
                new Lie("1", LyingListAnswersTest::firstNodesPage, FaultProxy.Fault.EMPTY_LIST_200,
                        "carries no metadata.resourceVersion"),
                new Lie("1", LyingListAnswersTest::firstNodesPage, FaultProxy.Fault.WRONG_KIND_200,
                        "it is a PodList (v1), not the NodeList (v1)"),
                new Lie("2", LyingListAnswersTest::secondNodesPage, FaultProxy.Fault.EMPTY_LIST_200,
                        "carries no metadata.resourceVersion"),
                new Lie("2", LyingListAnswersTest::secondNodesPage, FaultProxy.Fault.WRONG_KIND_200,
                        "it is a PodList (v1), not the NodeList (v1)"),
                new Lie("2", LyingListAnswersTest::secondNodesPage, FaultProxy.Fault.OTHER_RESOURCE_VERSION_200,
                        "but page 1 was at"));
        for (Lie lie : lies) {
            proxy.breakCall(lie.which(), lie.fault());
            CliRun run = CliRun.run("audit", "--kubeconfig", kc.toString());
            String what = "page " + lie.page() + " " + lie.fault() + " -> exit " + run.exitCode() + ": " + run.all();
            assertThat(run.exitCode()).as(what).isEqualTo(3);
            assertThat(run.err()).as(what).startsWith("nodegate: ")
                    .contains("LIST nodes at " + proxy.url() + ": broken answer: page " + lie.page() + " (GET "
                            + proxy.url() + "/api/v1/nodes?limit=500", lie.said());
            assertThat(run.out()).as(what).doesNotContain("500 nodes", "0 nodes");
        }
    }

    @Test
    void anAuditOfALyingEmptyAnswerExits3AndOfATrulyEmptyClusterIsAnInputErrorUnlessAllowed() throws Exception {
        ApiTestServer api = server();
        api.create(node("w-1", 1));
        FaultProxy proxy = proxy(api);
        Path kc = kubeconfig("lying", proxy.url());
        proxy.breakCall(LyingListAnswersTest::firstNodesPage, FaultProxy.Fault.EMPTY_LIST_200);
        CliRun lied = CliRun.run("audit", "--kubeconfig", kc.toString());
        assertThat(lied.exitCode()).as(lied.all()).isEqualTo(3);
        assertThat(lied.err()).contains("LIST nodes at " + proxy.url() + ": broken answer");

        // a well-formed answer that lists no Node: the wrong context more likely than a cluster with nothing wrong
        Path empty = kubeconfig("empty", server().url());
        CliRun refused = CliRun.run("audit", "--kubeconfig", empty.toString());
        assertThat(refused.exitCode()).as(refused.all()).isEqualTo(2);
        assertThat(refused.err()).contains("lists no Node objects", "(context empty)", "--allow-empty");
        CliRun allowed = CliRun.run("audit", "--kubeconfig", empty.toString(), "--allow-empty");
        assertThat(allowed.exitCode()).as(allowed.all()).isZero();
    }

    @Test
    void fleetWithALyingClusterExits3NamingIt() throws Exception {
        ApiTestServer a = server();
        a.create(node("a-1", 1));
        ApiTestServer b = server();
        b.create(node("b-1", 2));
        FaultProxy proxy = proxy(b);
        Path kcA = kubeconfig("cluster-a", a.url());
        Path kcB = kubeconfig("cluster-b", proxy.url());

        CliRun clean = CliRun.run("fleet", "--kubeconfig", kcA.toString(), "--kubeconfig", kcB.toString());
        assertThat(clean.exitCode()).as(clean.all()).isZero();

        for (FaultProxy.Fault lie : List.of(FaultProxy.Fault.EMPTY_LIST_200, FaultProxy.Fault.WRONG_KIND_200)) {
            proxy.breakCall(LyingListAnswersTest::firstNodesPage, lie);
            CliRun run = CliRun.run("fleet", "--kubeconfig", kcA.toString(), "--kubeconfig", kcB.toString());
            assertThat(run.exitCode()).as(lie + ": " + run.all()).isEqualTo(3);
            assertThat(run.all()).as(lie + ": " + run.all()).contains("LIST nodes at " + proxy.url()
                    + ": broken answer");
        }
    }
}
