package io.nodegate.detect.rejoin;

import io.nodegate.lifecycle.rejoin.RejoinReader;
import io.nodegate.lifecycle.verify.GoneRejoinCheck;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.detect.rejoin.RejoinRisk.Answer;
import io.nodegate.detect.rejoin.RejoinRisk.ClusterEvidence;
import io.nodegate.detect.rejoin.RejoinRisk.HostAnswer;
import io.nodegate.detect.rejoin.RejoinRisk.JoinPath;
import io.nodegate.detect.rejoin.RejoinRisk.Quarantine;
import io.nodegate.detect.rejoin.RejoinRisk.Read;
import io.nodegate.detect.rejoin.RejoinRisk.State;
import io.nodegate.detect.rejoin.RejoinRisk.Subject;
import io.nodegate.model.BootstrapToken;
import io.nodegate.model.SecretMeta;
import io.nodegate.model.Tombstone;
import io.nodegate.model.host.HostReport;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * "Can it come back?" decided from what was read: the quarantine closes every path whatever the token, an open
 * credential without a quarantine is "yes" with the exact path and what closes it, and a failed read is "unknown",
 * never "no".
 */
class RejoinRiskTest {

    private static final Instant NOW = Instant.parse("2026-03-20T06:00:00Z");
    private static final Tombstone A11 = new Tombstone("gpu-a11", "uid-a11", "uuid-a11", "machine-a11",
            Instant.parse("2026-03-19T06:10:00Z"), null, "kim");
    private static final Read<Optional<SecretMeta>> NO_PASSWORD = Read.ok(Optional.empty());
    private static final Read<Quarantine> IN_FORCE = Read.ok(new Quarantine(true, true, null));
    private static final Read<Quarantine> NONE = Read.ok(new Quarantine(false, false, null));
    private static final Read<List<BootstrapToken>> NO_TOKENS = Read.ok(List.of());

    private static Subject removed(Tombstone t, boolean labelled, HostReport host) {
        return new Subject(t.name(), t, "nodegate-tombstones", labelled, null, null, host, null, false);
    }

    private static ClusterEvidence cluster(Read<Quarantine> q, Read<List<BootstrapToken>> tokens) {
        return new ClusterEvidence(NOW, "nodegate-system", q, tokens);
    }

    /** A host report after rke2-uninstall.sh: no config, no agent units. */
    private static HostReport cleaned() {
        return report(new HostReport.AgentConfig(List.of(), null, null, null, false, false), List.of());
    }

    private static HostReport report(HostReport.AgentConfig config, List<HostReport.Service> services) {
        return new HostReport(HostReport.KIND, HostReport.SCHEMA_VERSION, Instant.parse("2026-03-19T07:00:00Z"), "/",
                "rke2", new HostReport.Identity("gpu-a11", "machine-a11", "uuid-a11", "boot-1"), config, null, null,
                services, null, null, List.of(), null, null, List.of(), List.of(), null);
    }

    private static JoinPath path(HostAnswer a, String id) {
        return a.paths().stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void aRemovedHostWithoutQuarantineCanComeBackByItsNeverExpiringServerToken() {
        HostAnswer a = RejoinRisk.answer(removed(A11, true, null), NO_PASSWORD, cluster(NONE, NO_TOKENS));
        assertThat(a.canComeBack()).isEqualTo(Answer.YES);
        assertThat(a.summary()).isEqualTo("yes (no quarantine; server token never expires; node-password Secret deleted)");
        assertThat(path(a, "server-token").state()).isEqualTo(State.OPEN);
        assertThat(path(a, "bootstrap-tokens").state()).isEqualTo(State.CLOSED);
        assertThat(a.finding()).hasValueSatisfying(f -> {
            assertThat(f.code()).isEqualTo("NG306");
            assertThat(f.name()).isEqualTo("removed-host-can-rejoin");
            assertThat(f.nodes()).containsExactly("gpu-a11");
            assertThat(f.hint()).contains("nodegate policy --quarantine | kubectl apply -f -", "rke2-uninstall.sh");
            assertThat(List.copyOf(((Map<?, ?>) f.evidence().get("openPaths")).keySet())).asString().isEqualTo("[quarantine, server-token]");
        });
    }

    @Test
    void theQuarantineClosesTheDoorWhateverTheTokenAndEvenWhenTheTokensCouldNotBeRead() {
        HostAnswer a = RejoinRisk.answer(removed(A11, true, null), NO_PASSWORD,
                cluster(IN_FORCE, Read.failed("LIST secrets answered HTTP 403")));
        assertThat(a.canComeBack()).isEqualTo(Answer.NO);
        assertThat(a.summary()).isEqualTo("no (the quarantine refuses its name gpu-a11, systemUUID uuid-a11, "
                + "machineID machine-a11)");
        assertThat(a.finding()).isEmpty();
        // the failed read is still shown, never as "closed"
        assertThat(path(a, "bootstrap-tokens").state()).isEqualTo(State.UNREAD);
        assertThat(a.unread()).containsExactly("bootstrap token Secrets in kube-system: LIST secrets answered HTTP 403");
    }

    @Test
    void theApiserversAnswerToADryRunConfirmsOrOpensTheQuarantine() {
        Subject s = removed(A11, true, null);
        ClusterEvidence ev = cluster(IN_FORCE, NO_TOKENS);

        HostAnswer refused = RejoinRisk.answer(s, NO_PASSWORD, Read.ok(new RejoinRisk.DryRun(true, "HTTP 422")), ev);
        assertThat(refused.canComeBack()).isEqualTo(Answer.NO);
        assertThat(path(refused, "quarantine").detail())
                .endsWith("; the apiserver refused a server-side dry run of a Node named gpu-a11");

        // the objects all there and the apiserver admitting the name: it enforces an old copy of the ledger
        HostAnswer admitted = RejoinRisk.answer(s, NO_PASSWORD,
                Read.ok(new RejoinRisk.DryRun(false, "HTTP 201, admitted")), ev);
        assertThat(admitted.canComeBack()).isEqualTo(Answer.YES);
        assertThat(admitted.summary()).startsWith("yes (the apiserver admits its name; server token never expires");
        JoinPath door = path(admitted, "quarantine");
        assertThat(door.state()).isEqualTo(State.OPEN);
        assertThat(door.detail()).contains("(HTTP 201, admitted)", "an old copy of the ledger");
        assertThat(door.closes()).startsWith("restart every kube-apiserver");
        assertThat(admitted.finding()).hasValueSatisfying(f -> assertThat(f.code()).isEqualTo("NG306"));

        // a dry run that could not be sent confirms nothing: the objects' answer stands, and says so
        HostAnswer unconfirmed = RejoinRisk.answer(s, NO_PASSWORD, Read.failed("HTTP 403 to this identity"), ev);
        assertThat(unconfirmed.canComeBack()).isEqualTo(Answer.NO);
        assertThat(path(unconfirmed, "quarantine").detail())
                .endsWith("; not confirmed by the apiserver: HTTP 403 to this identity");
        assertThat(unconfirmed.unread()).isEmpty();
    }

    @Test
    void aFailedReadOfTheQuarantineIsUnknownNeverNoAndNeverYes() {
        HostAnswer open = RejoinRisk.answer(removed(A11, true, null), NO_PASSWORD,
                cluster(Read.failed("GET ValidatingAdmissionPolicy nodegate-node-quarantine answered HTTP 403"),
                        NO_TOKENS));
        assertThat(open.canComeBack()).isEqualTo(Answer.UNKNOWN);
        assertThat(open.summary()).contains("could not read", "HTTP 403");
        assertThat(open.finding()).isEmpty();

        // a cleaned host, but the bootstrap tokens unread and no quarantine: unknown, not no
        HostAnswer tokens = RejoinRisk.answer(removed(A11, true, cleaned()), NO_PASSWORD,
                cluster(NONE, Read.failed("timeout")));
        assertThat(tokens.canComeBack()).isEqualTo(Answer.UNKNOWN);
        assertThat(tokens.unread()).containsExactly("bootstrap token Secrets in kube-system: timeout");
    }

    @Test
    void everyCredentialCheckedClosedIsNoWithoutAQuarantine() {
        HostAnswer a = RejoinRisk.answer(removed(A11, true, cleaned()), NO_PASSWORD, cluster(NONE, NO_TOKENS));
        assertThat(a.canComeBack()).isEqualTo(Answer.NO);
        assertThat(a.summary()).isEqualTo("no (every join credential checked closed)");
        assertThat(path(a, "server-token").detail()).contains("no RKE2/k3s config.yaml on the host");
    }

    @Test
    void aHostReportWithTheConfigAndTheAgentsEnabledIsTheExactPath() {
        HostReport kept = report(new HostReport.AgentConfig(List.of("/etc/rancher/rke2/config.yaml"),
                        "https://10.0.0.1:9345", null, null, true, false),
                List.of(new HostReport.Service("rke2-agent", "loaded", "inactive", "dead", "enabled", null),
                        new HostReport.Service("rancher-system-agent", "loaded", "active", "running", "enabled", null)));
        HostAnswer a = RejoinRisk.answer(removed(A11, true, kept), NO_PASSWORD, cluster(NONE, NO_TOKENS));
        assertThat(a.canComeBack()).isEqualTo(Answer.YES);
        assertThat(path(a, "server-token").detail()).isEqualTo("host report of 2026-03-19T07:00:00Z: "
                + "/etc/rancher/rke2/config.yaml sets a token for server https://10.0.0.1:9345; rke2-agent enabled: "
                + "the next boot registers again");
        assertThat(path(a, "rancher-system-agent").state()).isEqualTo(State.OPEN);
        assertThat(path(a, "rancher-system-agent").closes()).isEqualTo("rancher-system-agent-uninstall.sh on the host");
    }

    @Test
    void bootstrapTokensAreJudgedAsTheAuthenticatorJudgesThem() {
        List<BootstrapToken> tokens = List.of(
                new BootstrapToken("bootstrap-token-abcdef", NOW.minusSeconds(3600), null, null, true, false,
                        List.of("system:bootstrappers:k3s:default-node-token")),        // --ttl 0: never expires
                new BootstrapToken("bootstrap-token-000001", NOW, NOW.plusSeconds(86400),
                        "2026-03-21T06:00:00Z", true, false, List.of()),                  // valid for a day
                new BootstrapToken("bootstrap-token-000002", NOW, NOW.minusSeconds(1),
                        "2026-03-20T05:59:59Z", true, false, List.of()),                  // expired
                new BootstrapToken("bootstrap-token-000003", NOW, null, "tomorrow", true, false, List.of()), // unparsable
                new BootstrapToken("bootstrap-token-000004", NOW, null, null, false, false, List.of()),  // signing only
                new BootstrapToken("bootstrap-token-000005", NOW, null, null, true, true, List.of()));   // being deleted
        HostAnswer a = RejoinRisk.answer(removed(A11, true, cleaned()), NO_PASSWORD, cluster(NONE, Read.ok(tokens)));
        assertThat(a.canComeBack()).isEqualTo(Answer.YES);
        assertThat(a.paths().stream().filter(p -> p.state() == State.OPEN).map(JoinPath::id))
                .containsExactly("quarantine", "bootstrap-token bootstrap-token-abcdef",
                        "bootstrap-token bootstrap-token-000001");
        assertThat(path(a, "bootstrap-token bootstrap-token-abcdef").closes())
                .isEqualTo("k3s token delete abcdef (or kubectl -n kube-system delete secret bootstrap-token-abcdef)");
        assertThat(a.summary()).contains("bootstrap token abcdef never expires",
                "bootstrap token 000001 valid until 2026-03-21T06:00:00Z");
    }

    @Test
    void aTombstoneTheBindingDoesNotSelectOrWithoutIdentitiesLeavesAWayIn() {
        HostAnswer unlabelled = RejoinRisk.answer(removed(A11, false, cleaned()), NO_PASSWORD,
                cluster(IN_FORCE, NO_TOKENS));
        assertThat(path(unlabelled, "quarantine").state()).isEqualTo(State.OPEN);
        assertThat(path(unlabelled, "quarantine").closes())
                .isEqualTo("kubectl -n nodegate-system label configmap nodegate-tombstones nodegate.io/ledger=tombstones");

        Tombstone anonymous = new Tombstone("gpu-a11", "uid-a11", null, null, A11.removedAt(), null, "kim");
        HostAnswer renamed = RejoinRisk.answer(removed(anonymous, true, null), NO_PASSWORD, cluster(IN_FORCE, NO_TOKENS));
        assertThat(renamed.canComeBack()).isEqualTo(Answer.YES);
        assertThat(path(renamed, "quarantine-rename").detail())
                .isEqualTo("no systemUUID or machineID recorded for gpu-a11: the quarantine refuses only the name");
    }

    @Test
    void aBindingThatDoesNotDenyIsNoQuarantine() {
        HostAnswer a = RejoinRisk.answer(removed(A11, true, null), NO_PASSWORD,
                cluster(Read.ok(new Quarantine(true, true, "has validationActions [Audit] without Deny: it refuses "
                        + "nothing")), NO_TOKENS));
        assertThat(a.canComeBack()).isEqualTo(Answer.YES);
        assertThat(path(a, "quarantine").detail()).startsWith("binding nodegate-node-quarantine has validationActions");
    }

    @Test
    void aNodeAboutToBeRemovedIsClosedByAQuarantineInForceAndItsPasswordSecretGoesWithIt() {
        Subject live = new Subject("gpu-a10", null, null, false, "UUID-A10", "machine-a10", null, null, false);
        SecretMeta secret = new SecretMeta("kube-system", "gpu-a10.node-password.rke2", "uid-s", NOW, null, Map.of());
        HostAnswer a = RejoinRisk.answer(live, Read.ok(Optional.of(secret)), cluster(IN_FORCE, NO_TOKENS));
        assertThat(a.canComeBack()).isEqualTo(Answer.NO);
        assertThat(a.subject()).isEqualTo("a Node not removed yet");
        assertThat(path(a, "quarantine").detail()).contains("`nodegate remove gpu-a10` records the tombstone",
                "systemUUID uuid-a10");
        assertThat(path(a, "node-password").detail()).contains("deleted with the Node");

        HostAnswer none = RejoinRisk.answer(live, Read.ok(Optional.of(secret)), cluster(NONE, NO_TOKENS));
        assertThat(none.canComeBack()).isEqualTo(Answer.YES);
    }

    @Test
    void aHostDeletedWithoutATombstoneIsNotKnownToTheQuarantine() {
        Subject gone = new Subject("gpu-a10", null, null, false, "uuid-a10", null, null, null, true);
        HostAnswer a = RejoinRisk.answer(gone, NO_PASSWORD, cluster(IN_FORCE, NO_TOKENS));
        assertThat(a.canComeBack()).isEqualTo(Answer.YES);
        assertThat(a.subject()).isEqualTo("deleted without a tombstone");
        assertThat(path(a, "quarantine").detail()).contains("deleted without `nodegate remove`");
    }

    @Test
    void anUnknownNameIsUnknown() {
        Subject nobody = new Subject("nosuch", null, null, false, null, null, null,
                "no tombstone for nosuch in nodegate-system and no Node nosuch: nothing says which host it was", false);
        HostAnswer a = RejoinRisk.answer(nobody, NO_PASSWORD, cluster(IN_FORCE, NO_TOKENS));
        assertThat(a.canComeBack()).isEqualTo(Answer.UNKNOWN);
        assertThat(a.unread()).hasSize(1);
    }

    @Test
    void aRunWithAFailedReadNeverExitsAsYesOrNoEvenBesideAProvenAnswer() {
        HostAnswer yesButUnread = RejoinRisk.answer(removed(A11, true, null), NO_PASSWORD,
                cluster(NONE, Read.failed("timeout")));
        assertThat(yesButUnread.canComeBack()).isEqualTo(Answer.YES);
        assertThat(new RejoinReader.Report(NOW, "nodegate-system", List.of(yesButUnread)).worst())
                .isEqualTo(Answer.UNKNOWN);
        HostAnswer yes = RejoinRisk.answer(removed(A11, true, null), NO_PASSWORD, cluster(NONE, NO_TOKENS));
        assertThat(new RejoinReader.Report(NOW, "nodegate-system", List.of(yes)).worst()).isEqualTo(Answer.YES);
        assertThat(new RejoinReader.Report(NOW, "nodegate-system", List.of()).worst()).isEqualTo(Answer.NO);
        assertThat(GoneRejoinCheck.check(
                new RejoinReader.Report(NOW, "nodegate-system", List.of(yesButUnread))).outcome())
                .isEqualTo(Verdict.INVALID);
        assertThat(GoneRejoinCheck.check(
                new RejoinReader.Report(NOW, "nodegate-system", List.of(yes))).outcome())
                .isEqualTo(Verdict.PASS);
    }
}
