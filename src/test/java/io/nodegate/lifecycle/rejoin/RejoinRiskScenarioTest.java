package io.nodegate.lifecycle.rejoin;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.nodegate.policy.QuarantinePolicy;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 000's case 1 replayed over HTTP: gpu-a11 removed by `nodegate remove` with its RKE2 config still on the host
 * "can come back: yes (server token never expires; node-password Secret deleted)"; a bootstrap token k3s wrote is a
 * further open path, named with what closes it, and its secret half appears nowhere; with the quarantine applied it is
 * "no"; a quarantine that cannot be read makes it "unknown", never "no"; verify-gone gives the same answer.
 */
class RejoinRiskScenarioTest extends SeededClusterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The secret half of the planted bootstrap token ([a-z0-9]{16}, the format bootstrap tokens have). */
    private static final String TOKEN_SECRET = "zq8plantedtok3n9";

    @BeforeEach
    void setUp() {
        seedAtGateTime();
    }

    /**
     * What `k3s token create --ttl 0` stores (k3s pkg/cli/token/token.go → kubeadm.BootstrapTokenToSecret, the
     * format of the Kubernetes docs' "Bootstrap Token Secret format"): no expiration key, so it never expires.
     */
    private static Secret k3sBootstrapToken() {
        Base64.Encoder b64 = Base64.getEncoder();
        return new SecretBuilder().withNewMetadata().withName("bootstrap-token-zq8pla").withNamespace("kube-system")
                .endMetadata().withType("bootstrap.kubernetes.io/token")
                .withData(Map.of(
                        "token-id", b64.encodeToString("zq8pla".getBytes(StandardCharsets.UTF_8)),
                        "token-secret", b64.encodeToString(TOKEN_SECRET.getBytes(StandardCharsets.UTF_8)),
                        "usage-bootstrap-authentication", b64.encodeToString("true".getBytes(StandardCharsets.UTF_8)),
                        "usage-bootstrap-signing", b64.encodeToString("true".getBytes(StandardCharsets.UTF_8)),
                        "auth-extra-groups", b64.encodeToString("system:bootstrappers:k3s:default-node-token"
                                .getBytes(StandardCharsets.UTF_8))))
                .build();
    }

    private CliRun removeA11() {
        playGarbageCollector("gpu-a11");
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test");
        assertThat(removed.exitCode()).as(removed.all()).isZero();
        return removed;
    }

    private static void noSecretIn(CliRun run) {
        assertThat(run.all()).doesNotContain(TOKEN_SECRET, SeedCluster.SECRET_VALUE,
                Base64.getEncoder().encodeToString(TOKEN_SECRET.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theRemovedHostCanComeBackUntilTheQuarantineClosesTheDoor() throws Exception {
        removeA11();

        CliRun open = cli("rejoin-risk", "-o", "json");
        assertThat(open.exitCode()).as(open.all()).isEqualTo(5);
        JsonNode host = JSON.readTree(open.out()).get("hosts").get(0);
        assertThat(host.get("node").asString()).isEqualTo("gpu-a11");
        assertThat(host.get("canComeBack").asString()).isEqualTo("yes");
        assertThat(host.get("summary").asString())
                .isEqualTo("yes (no quarantine; server token never expires; node-password Secret deleted)");
        assertThat(host.get("finding").get("code").asString()).isEqualTo("NG306");
        assertThat(host.get("finding").get("hint").asString()).contains("nodegate policy --quarantine");

        // a bootstrap token that never expires: a further way in, with what closes it; its value nowhere
        api.create(k3sBootstrapToken());
        CliRun withToken = cli("rejoin-risk");
        assertThat(withToken.exitCode()).as(withToken.all()).isEqualTo(5);
        assertThat(withToken.out()).containsIgnoringWhitespaces("gpu-a11 (removed ", "can come back: yes (no quarantine; server token "
                        + "never expires; bootstrap token zq8pla never expires; node-password Secret deleted)",
                "open    bootstrap-token bootstrap-token-zq8pla Secret kube-system/bootstrap-token-zq8pla",
                "close: k3s token delete zq8pla", "NG306 removed-host-can-rejoin", "answer: yes");
        noSecretIn(withToken);
        noSecretIn(cli("rejoin-risk", "-o", "yaml"));

        // the quarantine, as `nodegate policy --quarantine` emits it: the door is closed whatever the token
        api.create(QuarantinePolicy.policy(), QuarantinePolicy.binding("nodegate-system"));
        CliRun closed = cli("rejoin-risk", "gpu-a11", "-o", "json");
        assertThat(closed.exitCode()).as(closed.all()).isZero();
        JsonNode answer = JSON.readTree(closed.out()).get("hosts").get(0);
        assertThat(answer.get("summary").asString()).isEqualTo("no (the quarantine refuses its name gpu-a11, "
                + "systemUUID uuid-a11, machineID machine-gpu-a11)");
        assertThat(answer.has("finding")).isFalse();
        noSecretIn(closed);

        // verify-gone answers the same for its removed target
        CliRun verified = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(verified.out()).containsIgnoringWhitespaces("can the removed hosts come back (rejoin-risk)",
                "gpu-a11: can come back: no (the quarantine refuses its name gpu-a11, systemUUID uuid-a11, "
                        + "machineID machine-gpu-a11)");
        noSecretIn(verified);
        try (Stream<Path> files = Files.walk(evidence)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(f)).as(f.toString()).doesNotContain(TOKEN_SECRET);
            }
        }
    }

    @Test
    void aQuarantineThatCannotBeReadIsUnknownNeverNo() {
        removeA11();
        api.create(QuarantinePolicy.policy(), QuarantinePolicy.binding("nodegate-system"));
        api.failOn("GET", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/"
                + QuarantinePolicy.NAME, 403);
        CliRun run = cli("rejoin-risk", "-o", "json");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        JsonNode host = JSON.readTree(run.out()).get("hosts").get(0);
        assertThat(host.get("canComeBack").asString()).isEqualTo("unknown");
        assertThat(host.get("unread").get(0).asString()).startsWith("the quarantine policy and binding: ")
                .contains("403");

        // verify-gone: a read that failed invalidates the run
        CliRun verified = cli("verify-gone", "--baseline", baseline.toString());
        assertThat(verified.exitCode()).as(verified.all()).isEqualTo(3);
        assertThat(verified.out()).containsIgnoringWhitespaces("INVALID  can the removed hosts come back (rejoin-risk)");
    }

    @Test
    void aNodeAboutToBeRemovedAndANameNobodyKnows() {
        CliRun live = cli("rejoin-risk", "gpu-a10", "-o", "json");
        assertThat(live.exitCode()).as(live.all()).isEqualTo(5);
        JsonNode host = JSON.readTree(live.out()).get("hosts").get(0);
        assertThat(host.get("subject").asString()).isEqualTo("a Node not removed yet");
        assertThat(host.get("summary").asString()).isEqualTo("yes (no quarantine; server token never expires; "
                + "node-password Secret goes with the Node)");

        api.create(QuarantinePolicy.policy(), QuarantinePolicy.binding("nodegate-system"));
        assertThat(cli("rejoin-risk", "gpu-a10").exitCode()).isZero();

        CliRun nobody = cli("rejoin-risk", "no-such-node");
        assertThat(nobody.exitCode()).as(nobody.all()).isEqualTo(3);
        assertThat(nobody.out()).containsIgnoringWhitespaces("no tombstone for no-such-node in nodegate-system and no Node no-such-node");
    }

    @Test
    void anEmptyLedgerIsNoRemovedHostAndAnUnreadableOneIsAnError() {
        CliRun empty = cli("rejoin-risk");
        assertThat(empty.exitCode()).as(empty.all()).isZero();
        assertThat(empty.out()).containsIgnoringWhitespaces("no removed host in the tombstone ledger (nodegate-system)");

        api.failOn("GET", "/api/v1/namespaces/nodegate-system/configmaps", 500);
        CliRun failed = cli("rejoin-risk");
        assertThat(failed.exitCode()).as(failed.all()).isEqualTo(3);
        assertThat(failed.err()).containsIgnoringWhitespaces("the removed hosts cannot be listed");
    }
}
