package io.nodegate.detect.rejoin;

import io.nodegate.detect.rejoin.RejoinRisk.Answer;
import io.nodegate.detect.rejoin.RejoinRisk.ClusterEvidence;
import io.nodegate.detect.rejoin.RejoinRisk.HostAnswer;
import io.nodegate.detect.rejoin.RejoinRisk.JoinPath;
import io.nodegate.detect.rejoin.RejoinRisk.Quarantine;
import io.nodegate.detect.rejoin.RejoinRisk.Rancher;
import io.nodegate.detect.rejoin.RejoinRisk.Read;
import io.nodegate.detect.rejoin.RejoinRisk.State;
import io.nodegate.detect.rejoin.RejoinRisk.Subject;
import io.nodegate.model.BootstrapToken;
import io.nodegate.model.MachineInfo;
import io.nodegate.model.RegistrationToken;
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
 * A Rancher custom node's ways back: its Machine gone and the registration command's token still accepted is "yes"
 * even on a host cleaned of its RKE2 token; whatever the token's expiry says, a token Rancher still holds is open; no
 * token at all is closed; a management cluster that could not be read is "unknown", never "no".
 */
class RancherRejoinRiskTest {

    private static final Instant NOW = Instant.parse("2026-04-20T06:00:00Z");
    private static final Tombstone A11 = new Tombstone("gpu-a11", "uid-a11", "uuid-a11", "machine-a11",
            Instant.parse("2026-04-19T06:10:00Z"), null, "kim");
    private static final Read<Optional<SecretMeta>> NO_PASSWORD = Read.ok(Optional.empty());
    private static final Read<Quarantine> NONE = Read.ok(new Quarantine(false, false, null));
    private static final Read<Quarantine> IN_FORCE = Read.ok(new Quarantine(true, true, null));
    private static final Read<List<BootstrapToken>> NO_TOKENS = Read.ok(List.of());

    /** default-token as the older releases keep it: in status, no expiry. */
    private static final RegistrationToken NEVER = new RegistrationToken("c-m-7w2kx", "default-token", "c-m-7w2kx",
            Instant.parse("2026-04-02T01:12:47Z"), false, null, null, null, null, null, true);

    private static RegistrationToken rotating(String expiresAt, String graceEnds) {
        return new RegistrationToken("c-m-7w2kx", "default-token", "c-m-7w2kx", Instant.parse("2026-04-02T01:12:47Z"),
                false, null, "crt-token-default-token", Instant.parse(expiresAt), expiresAt,
                graceEnds == null ? null : Instant.parse(graceEnds), false);
    }

    private static MachineInfo machine(String node) {
        return new MachineInfo("cluster.x-k8s.io/v1beta1", "fleet-default", "custom-4b2f0c1d9e8a", "uid-m", "1",
                Map.of(MachineInfo.CLUSTER_NAME_LABEL, "prod-gpu"), Map.of(), null, "prod-gpu", "CustomMachine",
                "rke.cattle.io", "rke2://" + node, node, null, null, "Running", Map.of());
    }

    private static Read<Rancher> rancher(List<RegistrationToken> tokens, List<MachineInfo> machines) {
        return Read.ok(new Rancher("prod-gpu", "fleet-default", "c-m-7w2kx", tokens, machines));
    }

    /** A host report after rke2-uninstall.sh and rancher-system-agent-uninstall.sh: no config, no agent units. */
    private static HostReport cleaned() {
        return new HostReport(HostReport.KIND, HostReport.SCHEMA_VERSION, Instant.parse("2026-04-19T07:00:00Z"), "/",
                "rke2", new HostReport.Identity("gpu-a11", "machine-a11", "uuid-a11", "boot-1"),
                new HostReport.AgentConfig(List.of(), null, null, null, false, false), null, null, List.of(), null,
                null, List.of(), null, null, List.of(), List.of(), null);
    }

    private static Subject removedAndCleaned() {
        return new Subject("gpu-a11", A11, "nodegate-tombstones", true, null, null, cleaned(), null, false);
    }

    private static HostAnswer answer(Subject s, Read<Quarantine> q, Read<Rancher> rancher) {
        return RejoinRisk.answer(s, NO_PASSWORD, new ClusterEvidence(NOW, "nodegate-system", q, NO_TOKENS, rancher));
    }

    private static JoinPath path(HostAnswer a, String id) {
        return a.paths().stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void machineGoneAndTheRegistrationTokenStillAcceptedIsYesOnACleanedHost() {
        // without Rancher's side, the cleaned host holds nothing: every credential checked is closed
        assertThat(answer(removedAndCleaned(), NONE, null).canComeBack()).isEqualTo(Answer.NO);

        HostAnswer a = answer(removedAndCleaned(), NONE, rancher(List.of(NEVER), List.of()));
        assertThat(a.canComeBack()).isEqualTo(Answer.YES);
        assertThat(a.summary()).isEqualTo("yes (no quarantine; Rancher registration token c-m-7w2kx/default-token "
                + "never expires; node-password Secret deleted)");
        assertThat(path(a, "rancher-machine").state()).isEqualTo(State.CLOSED);
        assertThat(path(a, "rancher-machine").detail()).isEqualTo("no Machine in fleet-default (cluster prod-gpu) "
                + "names gpu-a11: the plan credential of the host's rancher-system-agent went with it");
        JoinPath token = path(a, "rancher-registration c-m-7w2kx/default-token");
        assertThat(token.state()).isEqualTo(State.OPEN);
        assertThat(token.detail()).contains("has no expiry", "registers any host as a new Machine");
        assertThat(token.closes()).startsWith("the quarantine");
        assertThat(a.finding()).hasValueSatisfying(f -> assertThat(
                ((Map<?, ?>) f.evidence().get("openPaths")).keySet().stream().map(String::valueOf).toList())
                .containsExactly("quarantine", "rancher-registration c-m-7w2kx/default-token"));

        // the quarantine refuses the Node the host would register, whatever the token
        assertThat(answer(removedAndCleaned(), IN_FORCE, rancher(List.of(NEVER), List.of())).canComeBack())
                .isEqualTo(Answer.NO);
    }

    @Test
    void aRotatingTokenIsOpenUntilRotatedAndStillOpenWhenTheRotationIsLate() {
        HostAnswer valid = answer(removedAndCleaned(), NONE, rancher(List.of(rotating("2026-05-02T03:40:11Z",
                "2026-04-20T08:00:00Z")), List.of()));
        JoinPath p = path(valid, "rancher-registration c-m-7w2kx/default-token");
        assertThat(p.state()).isEqualTo(State.OPEN);
        assertThat(p.brief()).isEqualTo("Rancher registration token c-m-7w2kx/default-token valid until "
                + "2026-05-02T03:40:11Z");
        assertThat(p.detail()).contains("the token it replaced is accepted until 2026-04-20T08:00:00Z");

        // Rancher accepts what its Secret holds whatever the time: a rotation not done yet leaves the token open
        HostAnswer late = answer(removedAndCleaned(), NONE, rancher(List.of(rotating("2026-04-19T00:00:00Z", null)),
                List.of()));
        assertThat(path(late, "rancher-registration c-m-7w2kx/default-token").state()).isEqualTo(State.OPEN);
        assertThat(late.summary()).contains("past its rotation, not rotated");
        assertThat(late.canComeBack()).isEqualTo(Answer.YES);
    }

    @Test
    void noRegistrationTokenAndNoMachineIsClosed() {
        HostAnswer a = answer(removedAndCleaned(), NONE, rancher(List.of(), List.of(machine("gpu-a12"))));
        assertThat(path(a, "rancher-registration").state()).isEqualTo(State.CLOSED);
        assertThat(path(a, "rancher-registration").detail()).isEqualTo("no ClusterRegistrationToken in c-m-7w2kx: "
                + "no registration command of cluster prod-gpu is accepted");
        assertThat(path(a, "rancher-machine").state()).isEqualTo(State.CLOSED);
        assertThat(a.canComeBack()).isEqualTo(Answer.NO);
    }

    @Test
    void aMachineThatStillNamesTheRemovedHostIsOpenAndGoesWithTheRemovalOfALiveNode() {
        HostAnswer removed = answer(removedAndCleaned(), NONE, rancher(List.of(), List.of(machine("gpu-a11"))));
        JoinPath m = path(removed, "rancher-machine");
        assertThat(m.state()).isEqualTo(State.OPEN);
        assertThat(m.detail()).startsWith("Machine fleet-default/custom-4b2f0c1d9e8a (cluster prod-gpu) still names "
                + "gpu-a11");
        assertThat(removed.canComeBack()).isEqualTo(Answer.YES);

        Subject live = new Subject("gpu-a11", null, null, false, "uuid-a11", "machine-a11", null, null, false);
        HostAnswer before = answer(live, NONE, rancher(List.of(), List.of(machine("gpu-a11"))));
        assertThat(path(before, "rancher-machine").state()).isEqualTo(State.NOTE);
    }

    @Test
    void aManagementClusterThatCouldNotBeReadIsUnknownNeverNo() {
        Read<Rancher> denied = Read.failed("LIST clusterregistrationtokens.management.cattle.io/v3 in c-m-7w2kx "
                + "answered HTTP 403");
        HostAnswer a = answer(removedAndCleaned(), NONE, denied);
        assertThat(a.canComeBack()).isEqualTo(Answer.UNKNOWN);
        assertThat(path(a, "rancher-registration").state()).isEqualTo(State.UNREAD);
        assertThat(a.unread()).anySatisfy(u -> assertThat(u).contains("HTTP 403"));

        // the quarantine still proves "no"; the failed read is shown beside it
        HostAnswer closed = answer(removedAndCleaned(), IN_FORCE, denied);
        assertThat(closed.canComeBack()).isEqualTo(Answer.NO);
        assertThat(closed.unread()).isNotEmpty();
    }
}
