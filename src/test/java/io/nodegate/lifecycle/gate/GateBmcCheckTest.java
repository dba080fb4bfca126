package io.nodegate.lifecycle.gate;

import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.bmc.BmcSystem;
import io.nodegate.model.bmc.PowerEvent;
import io.nodegate.model.bmc.PowerLog;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.nodegate.lifecycle.gate.GateDecisionTest.A11;
import static io.nodegate.lifecycle.gate.GateDecisionTest.BASE;
import static io.nodegate.lifecycle.gate.GateDecisionTest.GOOD;
import static io.nodegate.lifecycle.gate.GateDecisionTest.LEASE;
import static io.nodegate.lifecycle.gate.GateDecisionTest.NOW;
import static io.nodegate.lifecycle.gate.GateDecisionTest.REQ;
import static io.nodegate.lifecycle.gate.GateDecisionTest.check;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate's bmc check: what gpu-a11's own BMC says. Off passes (and its logged power-off is said on the time-match
 * line), On fails with a silent Lease, unreadable is INVALID, no BMC is "not checked".
 */
class GateBmcCheckTest {

    static final String BMC = "https://10.0.30.11";
    static final String ENTRY = "/redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel/Entries/112";

    static BmcReadings bmc(String powerState, Instant poweredOff) {
        PowerLog log = !"Off".equals(powerState) ? null : new PowerLog(List.of(ENTRY.replaceAll("/\\d+$", "")),
                poweredOff == null ? null : new PowerEvent(PowerEvent.Kind.OFF, poweredOff, ENTRY, null,
                        "Power Unit: Power off/down"), null, 112, false, null);
        return BmcReadings.of(List.of(new BmcReading(BMC, NOW.minusSeconds(5), null, List.of(new BmcSystem(BMC,
                "/redfish/v1/Systems/System.Embedded.1", A11.systemInfo().systemUuid(), powerState, null, null, null,
                "OK", "Enabled", log)), null)));
    }

    static GateResult gate(GateEvidence evidence) {
        return GateDecision.decide(BASE, evidence, REQ);
    }

    @Test
    void withoutABmcTheCheckIsNotCheckedAndNeverAPass() {
        GateResult r = gate(GOOD);

        assertThat(check(r, "bmc").outcome()).isEqualTo(Verdict.NOT_CHECKED);
        assertThat(check(r, "bmc").reasons()).containsExactly("no --bmc or --bmc-inventory given: what the host's BMC "
                + "says about its power was not checked");
        assertThat(check(r, "c").evidence()).doesNotContainKey("bmcPowerOff");
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void offWithAPowerOffSecondsAfterTheLeaseStopIsPositiveEvidenceOnTheTimeMatchLine() {
        GateResult r = gate(GOOD.withBmc(bmc("Off", LEASE.plusSeconds(6))));

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        Check bmc = check(r, "bmc");
        assertThat(bmc.outcome()).isEqualTo(Verdict.PASS);
        assertThat(bmc.evidence()).containsEntry("power", "powered-off")
                .containsEntry("poweredOffAt", "2026-10-19T06:08:02Z")
                .containsEntry("timeMatch", "powered off at 2026-10-19T06:08:02Z, 6s after the Lease's last renewal "
                        + "(within ±5m): the Lease stopped when the power went off, positive evidence of a shutdown");
        assertThat(check(r, "c").evidence()).containsEntry("bmcPowerOff", "powered off at 2026-10-19T06:08:02Z, 6s "
                + "after the Lease's last renewal (within ±5m): the Lease stopped when the power went off, positive "
                + "evidence of a shutdown (BMC " + BMC + ", " + ENTRY + ")");
    }

    @Test
    void offLongAfterTheLeaseStopIsCleanupThenShutdownAndStillPasses() {
        GateResult r = gate(GOOD.withBmc(bmc("Off", LEASE.plus(Duration.ofMinutes(40)))));

        assertThat(check(r, "bmc").outcome()).isEqualTo(Verdict.PASS);
        assertThat(check(r, "bmc").evidence().get("timeMatch")).isEqualTo("powered off at 2026-10-19T06:47:56Z, 40m "
                + "after the Lease's last renewal (outside ±5m): the agent stopped first, the host was powered off later");
    }

    @Test
    void offWithoutALoggedTimeStillPassesAndSaysSo() {
        GateResult r = gate(GOOD.withBmc(bmc("Off", null)));

        assertThat(check(r, "bmc").outcome()).isEqualTo(Verdict.PASS);
        assertThat(check(r, "bmc").evidence()).containsEntry("poweredOffAt", "unknown (see source)");
        assertThat(check(r, "bmc").evidence().get("source")).contains("power-off time unknown: none of the 112 entries "
                + "read is a power-off nodegate recognises");
        assertThat(check(r, "c").evidence()).doesNotContainKey("bmcPowerOff");
    }

    @Test
    void aPowerOffLoggedLongBeforeTheLeaseStoppedHolds() {
        GateResult r = gate(GOOD.withBmc(bmc("Off", LEASE.minus(Duration.ofHours(3)))));

        assertThat(r.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "bmc").reasons()).singleElement().asString().isEqualTo("the BMC's last logged power-off "
                + "(2026-10-19T03:07:56Z) is 3h before the Lease's last renewal (2026-10-19T06:07:56Z): a later "
                + "power-off was not logged, or the BMC's clock or its binding to this Node is wrong");
    }

    @Test
    void aRunningHostWithASilentLeaseFails() {
        GateResult r = gate(GOOD.withBmc(bmc("On", null)));

        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(check(r, "bmc").reasons()).containsExactly("a running host is not cleaned up: its BMC says "
                + "PowerState On while its Lease is silent since 2026-10-19T06:07:56Z. The host is up: a network cut, "
                + "a hung kubelet, or another cluster. Not a shutdown");
    }

    @Test
    void aRunningHostWhoseLeaseRenewsHolds() {
        GateEvidence renewing = GateDecisionTest.with(GOOD, A11, new LeaseInfo("kube-node-lease", "gpu-a11", "l", null,
                "gpu-a11", NOW.minusSeconds(8), 40));

        GateResult r = gate(renewing.withBmc(bmc("On", null)));

        assertThat(check(r, "bmc").outcome()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "bmc").reasons()).containsExactly("a running host is not cleaned up: its BMC says "
                + "PowerState On");
    }

    @Test
    void transitioningAndNotFoundHoldAndUnreadableIsInvalid() {
        assertThat(check(gate(GOOD.withBmc(bmc("PoweringOff", null))), "bmc").reasons())
                .containsExactly("the BMC reports PowerState PoweringOff: no power state to rely on yet");

        BmcReadings elsewhere = BmcReadings.of(List.of(new BmcReading(BMC, NOW, null, List.of(), null)));
        GateResult notFound = gate(GOOD.withBmc(elsewhere));
        assertThat(notFound.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(notFound, "bmc").reasons()).singleElement().asString()
                .startsWith("BMC evidence was asked for and none carries this host: no BMC read carries systemUUID");

        BmcReadings failed = BmcReadings.of(List.of(BmcReading.failed(BMC, NOW, "GET /redfish/v1: TLS failed, the "
                + "certificate was not accepted")));
        GateResult invalid = gate(GOOD.withBmc(failed));
        assertThat(invalid.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(check(invalid, "bmc").reasons()).singleElement().asString().startsWith("the BMC evidence is "
                + "unreadable (no BMC read carries systemUUID uuid-gpu-a11, but " + BMC + " (GET /redfish/v1: TLS failed");
    }
}
