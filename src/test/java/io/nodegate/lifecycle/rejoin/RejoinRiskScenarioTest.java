package io.nodegate.lifecycle.rejoin;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.nodegate.lifecycle.quarantine.TombstoneLedger;
import io.nodegate.model.Tombstone;
import io.nodegate.policy.QuarantinePolicy;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 000's case 1 replayed over HTTP: gpu-a11 removed by `nodegate remove` with its RKE2 config still on the host
 * "can come back: yes (server token never expires; node-password Secret deleted)"; a bootstrap token k3s wrote is a
 * further open path, named with what closes it, and its secret half appears nowhere; with the quarantine applied and
 * a new token it is "no"; a quarantine that cannot be read makes it "unknown", never "no"; verify-gone gives the same
 * answer.
 */
class RejoinRiskScenarioTest extends SeededClusterTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The secret half of the planted bootstrap token ([a-z0-9]{16}, the format bootstrap tokens have). */
    private static final String TOKEN_SECRET = "zq8plantedtok3n9";
    /** The secret half of the token created after the quarantine. */
    private static final String NEW_TOKEN_SECRET = "r7kd2mnewtok3n42";

    @BeforeEach
    void setUp() {
        seedAtGateTime();
    }

    /**
     * What `k3s token create --ttl 0` stores (k3s pkg/cli/token/token.go → kubeadm.BootstrapTokenToSecret, the
     * format of the Kubernetes docs' "Bootstrap Token Secret format"): no expiration key, so it never expires.
     */
    private static Secret k3sBootstrapToken() {
        return k3sBootstrapToken("zq8pla", TOKEN_SECRET, null);
    }

    /**
     * A bootstrap token as k3s stores it; {@code expiration} is what `--ttl` adds to the creation time (RFC 3339),
     * null for `--ttl 0`.
     */
    private static Secret k3sBootstrapToken(String id, String secret, Instant expiration) {
        Base64.Encoder b64 = Base64.getEncoder();
        Map<String, String> data = new LinkedHashMap<>();
        data.put("token-id", b64.encodeToString(id.getBytes(StandardCharsets.UTF_8)));
        data.put("token-secret", b64.encodeToString(secret.getBytes(StandardCharsets.UTF_8)));
        data.put("usage-bootstrap-authentication", b64.encodeToString("true".getBytes(StandardCharsets.UTF_8)));
        data.put("usage-bootstrap-signing", b64.encodeToString("true".getBytes(StandardCharsets.UTF_8)));
        data.put("auth-extra-groups", b64.encodeToString("system:bootstrappers:k3s:default-node-token"
                .getBytes(StandardCharsets.UTF_8)));
        if (expiration != null) {
            data.put("expiration", b64.encodeToString(expiration.toString().getBytes(StandardCharsets.UTF_8)));
        }
        return new SecretBuilder().withNewMetadata().withName("bootstrap-token-" + id).withNamespace("kube-system")
                .endMetadata().withType("bootstrap.kubernetes.io/token").withData(data).build();
    }

    private CliRun removeA11() {
        playGarbageCollector("gpu-a11");
        CliRun removed = cli("remove", "gpu-a11", "--baseline", baseline.toString(), "--override", "kim: test");
        assertThat(removed.exitCode()).as(removed.all()).isZero();
        return removed;
    }

    private static void noSecretIn(CliRun run) {
        for (String secret : List.of(TOKEN_SECRET, NEW_TOKEN_SECRET)) {
            assertThat(run.all()).doesNotContain(secret, SeedCluster.SECRET_VALUE,
                    Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8)));
        }
    }

    private static List<String> pathIds(JsonNode host) {
        List<String> ids = new ArrayList<>();
        host.get("paths").forEach(p -> ids.add(p.get("id").asString()));
        return ids;
    }

    private static JsonNode path(JsonNode host, String id) {
        for (JsonNode p : host.get("paths")) {
            if (p.get("id").asString().equals(id)) {
                return p;
            }
        }
        throw new AssertionError("no path " + id + " in " + host);
    }

    /**
     * The seed's next step after the quarantine: the token that never expires is replaced by one that does
     * (`k3s token delete zq8pla`, then `k3s token create --ttl 24h`). The answer stays "no", because the quarantine,
     * not the token, closes the door; the old token is no longer a way in, the new one is listed as open until its
     * expiry, and once the clock passes that expiry it is listed as refused. The server token itself is not visible
     * through the API, so its rotation (`k3s token rotate`) cannot change the answer; only a host report can.
     */
    @Test
    void afterTheQuarantineAndANewTokenTheAnswerIsNoAndTheNewTokenExpires() throws Exception {
        removeA11();
        api.create(k3sBootstrapToken());
        CliRun open = cli("rejoin-risk", "gpu-a11", "-o", "json");
        assertThat(open.exitCode()).as(open.all()).isEqualTo(5);
        assertThat(pathIds(JSON.readTree(open.out()).get("hosts").get(0)))
                .contains("bootstrap-token bootstrap-token-zq8pla");

        applyQuarantine("gpu-a11");
        api.delete(k3sBootstrapToken());
        Instant expires = clock.instant().plus(Duration.ofHours(24));
        api.create(k3sBootstrapToken("r7kd2m", NEW_TOKEN_SECRET, expires));

        CliRun closed = cli("rejoin-risk", "gpu-a11", "-o", "json");
        assertThat(closed.exitCode()).as(closed.all()).isZero();
        JsonNode host = JSON.readTree(closed.out()).get("hosts").get(0);
        assertThat(host.get("canComeBack").asString()).isEqualTo("no");
        assertThat(host.get("summary").asString()).isEqualTo("no (the quarantine refuses its name gpu-a11, "
                + "systemUUID uuid-a11, machineID machine-gpu-a11)");
        assertThat(path(host, "quarantine").get("detail").asString())
                .endsWith("; the apiserver refused a server-side dry run of a Node named gpu-a11");
        assertThat(pathIds(host)).doesNotContain("bootstrap-token bootstrap-token-zq8pla");
        JsonNode token = path(host, "bootstrap-token bootstrap-token-r7kd2m");
        assertThat(token.get("state").asString()).isEqualTo("open");
        assertThat(token.get("detail").asString()).contains("until " + expires);
        assertThat(token.get("closes").asString()).contains("k3s token delete r7kd2m");
        noSecretIn(closed);

        // a day later the new token is refused as expired: no bootstrap token is a way in any more
        clock.set(expires.plusSeconds(1));
        CliRun later = cli("rejoin-risk", "gpu-a11", "-o", "json");
        assertThat(later.exitCode()).as(later.all()).isZero();
        JsonNode after = JSON.readTree(later.out()).get("hosts").get(0);
        assertThat(after.get("canComeBack").asString()).isEqualTo("no");
        JsonNode tokens = path(after, "bootstrap-tokens");
        assertThat(tokens.get("state").asString()).isEqualTo("closed");
        assertThat(tokens.get("detail").asString()).contains("bootstrap-token-r7kd2m (expired " + expires + ")");
        noSecretIn(later);
        noSecretIn(cli("rejoin-risk", "gpu-a11"));
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
        applyQuarantine("gpu-a11");
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

    /**
     * The quarantine's policy, binding and tombstone all there, and the apiserver still admitting a Node under the
     * removed host's name (as a kube-apiserver does once a binding with ConfigMap parameters was deleted while it
     * ran): the objects are not the answer, the apiserver's is. A dry run that cannot be sent confirms nothing and
     * leaves the objects' answer, saying so; nothing is stored by either.
     */
    @Test
    void theApiserversOwnAnswerDecidesWhetherTheQuarantineHolds() throws Exception {
        removeA11();
        api.create(QuarantinePolicy.policy(), QuarantinePolicy.binding("nodegate-system"));

        CliRun blind = cli("rejoin-risk", "gpu-a11", "-o", "json");
        assertThat(blind.exitCode()).as(blind.all()).isEqualTo(5);
        JsonNode host = JSON.readTree(blind.out()).get("hosts").get(0);
        assertThat(host.get("canComeBack").asString()).isEqualTo("yes");
        assertThat(host.get("summary").asString()).startsWith("yes (the apiserver admits its name; ");
        JsonNode door = path(host, "quarantine");
        assertThat(door.get("state").asString()).isEqualTo("open");
        assertThat(door.get("detail").asString()).contains("tombstone in ConfigMap nodegate-system/",
                "yet the apiserver admitted a server-side dry run of a Node named gpu-a11 (HTTP 201, admitted)");
        assertThat(door.get("closes").asString()).startsWith("restart every kube-apiserver");
        assertThat(host.get("finding").get("hint").asString()).contains("restart every kube-apiserver");
        assertThat(api.client().nodes().withName("gpu-a11").get()).as("a dry run stores nothing").isNull();

        // an identity that may not create Nodes (the operators' role grants none): not confirmed, and said
        api.failOn("POST", "/api/v1/nodes", 403);
        CliRun unconfirmed = cli("rejoin-risk", "gpu-a11", "-o", "json");
        assertThat(unconfirmed.exitCode()).as(unconfirmed.all()).isZero();
        JsonNode answer = JSON.readTree(unconfirmed.out()).get("hosts").get(0);
        assertThat(answer.get("canComeBack").asString()).isEqualTo("no");
        assertThat(path(answer, "quarantine").get("detail").asString()).contains("; not confirmed by the apiserver: "
                + "a server-side dry run of a Node named gpu-a11 was not allowed to this identity (HTTP 403");
    }

    /**
     * One dry run per removed host is one request each: a run sends at most 20, for the most recently removed hosts
     * (those an apiserver reading an old copy of the ledger misses first); an older one is "not confirmed", and
     * naming it checks it.
     */
    @Test
    void oneRunConfirmsTheTwentyMostRecentlyRemovedHostsAndSaysSoOfTheRest() throws Exception {
        TombstoneLedger ledger = new TombstoneLedger(client, "nodegate-system");
        Instant first = clock.instant().minus(Duration.ofDays(30));
        for (int i = 0; i < 21; i++) {
            ledger.record(new Tombstone(String.format("gone-%02d", i), "uid-gone-" + i, "uuid-gone-" + i,
                    "machine-gone-" + i, first.plus(Duration.ofHours(i)), null, "kim"));
        }
        applyQuarantine();
        api.resetCounts();

        CliRun run = cli("rejoin-risk", "-o", "json");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(5);
        assertThat(api.requests("POST", "/api/v1/nodes")).isEqualTo(20);
        JsonNode hosts = JSON.readTree(run.out()).get("hosts");
        assertThat(hosts).hasSize(21);
        JsonNode oldest = hosts.get(0);
        assertThat(oldest.get("node").asString()).isEqualTo("gone-00");
        assertThat(oldest.get("canComeBack").asString()).isEqualTo("no");
        assertThat(path(oldest, "quarantine").get("detail").asString()).contains("not confirmed by the apiserver: "
                + "not checked: one run sends at most 20 dry runs");
        // this stand-in enforces no tombstone, as a blind apiserver: each host checked is a "yes"
        for (int i = 1; i < 21; i++) {
            assertThat(hosts.get(i).get("summary").asString()).as(hosts.get(i).get("node").asString())
                    .startsWith("yes (the apiserver admits its name");
        }

        CliRun named = cli("rejoin-risk", "gone-00", "-o", "json");
        assertThat(JSON.readTree(named.out()).get("hosts").get(0).get("summary").asString())
                .startsWith("yes (the apiserver admits its name");
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
