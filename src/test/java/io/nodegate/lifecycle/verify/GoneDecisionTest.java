package io.nodegate.lifecycle.verify;

import io.nodegate.lifecycle.gate.GateDecisionTest;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.Condition;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.SecretMeta;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** verify-gone as a pure function: each query fires on what came back, and its self-test guards "0 found". */
class GoneDecisionTest {

    static final Baseline BASE = GateDecisionTest.BASE;
    static final Instant OLD = Instant.parse("2026-04-01T00:00:00Z");
    static final Instant AFTER = BASE.baselineTs().plusSeconds(3600);

    static NodeInfo node(String name, String uid, Instant created, String ip, String uuid, String boot) {
        return new NodeInfo(name, uid, "1", created, Map.of(), Map.of(), List.of(), false, null,
                List.of(new NodeInfo.NodeAddress("InternalIP", ip)),
                List.of(new Condition("Ready", "True", null, null, Instant.parse("2026-10-19T06:05:35Z"), null)),
                new NodeSystemInfo(boot, uuid, "mid-" + uuid, "6.8", null, null, null), Map.of());
    }

    /** After gpu-a11 was removed: ctl-1, keep-1 and the still-silent gpu-a10 as in the baseline. */
    static List<NodeInfo> afterRemoval() {
        NodeInfo a10 = GateDecisionTest.A10;
        return new ArrayList<>(List.of(GateDecisionTest.CTL, GateDecisionTest.KEEP, a10));
    }

    static final SecretMeta KEEP_SECRET = GateDecisionTest.KEEP_SECRET;
    static final Map<String, LeaseInfo> A10_LEASE = Map.of("gpu-a10",
            new LeaseInfo("kube-node-lease", "gpu-a10", "l", null, "gpu-a10", BASE.target("gpu-a10").leaseRenewTime(), 40));

    static GoneDecision.Result decide(List<NodeInfo> nodes, List<SecretMeta> secrets, Pattern p, List<String> ips) {
        return GoneDecision.decide(BASE, new GoneDecision.Evidence(AFTER, nodes, secrets, A10_LEASE, List.of(), null), p, ips);
    }

    static Check check(GoneDecision.Result r, String id) {
        return r.checks().stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void aSelfTestThatFindsManyNodesIsSummarised() {
        assertThat(GoneDecision.summary(List.of("a", "b"))).isEqualTo("[a, b]");
        assertThat(GoneDecision.summary(List.of("n1", "n2", "n3", "n4", "n5"))).isEqualTo("[n1, n2, n3, … 5 in all]");
    }

    @Test
    void nothingCameBack() {
        GoneDecision.Result r = decide(afterRemoval(), List.of(KEEP_SECRET), Pattern.compile("^new-"), List.of());
        assertThat(r.verdict()).as(r.findings().toString()).isEqualTo(Verdict.PASS);
        assertThat(check(r, "by-ip").evidence().get("selfTest")).endsWith("-> [keep-1]");
    }

    @Test
    void eachWayBackIsCaught() {
        // renamed host: new name, new IP, same board
        List<NodeInfo> renamed = afterRemoval();
        renamed.add(node("new-01", "u1", AFTER, "198.51.100.21", "uuid-gpu-a11", "b1"));
        GoneDecision.Result r = decide(renamed, List.of(KEEP_SECRET), null, List.of());
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(check(r, "new-nodes").reasons()).anySatisfy(s -> assertThat(s).startsWith("Node new-01 created"));
        assertThat(check(r, "by-host-id").reasons()).containsExactly(
                "Node new-01 has systemUUID uuid-gpu-a11 of target gpu-a11: the same host came back under a new name");

        // same IP, old creation time (a Node that existed all along took the address): only the IP query fires
        List<NodeInfo> ipReuse = afterRemoval();
        ipReuse.add(node("lab-7", "u2", OLD, "192.0.2.11", "uuid-lab-7", "b2"));
        GoneDecision.Result r2 = decide(ipReuse, List.of(KEEP_SECRET), null, List.of());
        assertThat(check(r2, "by-ip").reasons()).containsExactly("Node lab-7 has address 192.0.2.11 of gpu-a11");
        assertThat(check(r2, "new-nodes").outcome()).isEqualTo(Verdict.PASS);

        // the receiving team's naming, and an extra --ip
        List<NodeInfo> named = afterRemoval();
        named.add(node("new-02", "u3", OLD, "198.51.100.22", "uuid-x", "b3"));
        GoneDecision.Result r3 = decide(named, List.of(KEEP_SECRET), Pattern.compile("^new-"), List.of("198.51.100.22"));
        assertThat(check(r3, "by-name").reasons()).containsExactly("Node new-02 matches --name-pattern ^new-");
        assertThat(check(r3, "by-ip").reasons()).containsExactly("Node new-02 has address 198.51.100.22 of --ip");

        // a node-password Secret registered after the baseline
        SecretMeta fresh = new SecretMeta("kube-system", "gpu-a11.node-password.rke2", "s9", AFTER, null, Map.of());
        GoneDecision.Result r4 = decide(afterRemoval(), List.of(KEEP_SECRET, fresh), null, List.of());
        assertThat(check(r4, "new-secrets").reasons()).singleElement().asString().contains("gpu-a11.node-password.rke2");
    }

    @Test
    void aRemainingTargetThatMovedFails() {
        List<NodeInfo> moved = afterRemoval();
        moved.replaceAll(n -> n.name().equals("gpu-a10")
                ? GateDecisionTest.node("gpu-a10", "uid-a10", "Unknown", GateDecisionTest.BURNIN, "boot-a10-new", 8,
                "192.0.2.10", Map.of(), true) : n);
        GoneDecision.Result r = decide(moved, List.of(KEEP_SECRET), null, List.of());
        assertThat(check(r, "remaining-targets").reasons()).containsExactly("gpu-a10 bootID changed boot-a10 -> boot-a10-new");
        // its own IP and UUID are not "came back": it never left
        assertThat(check(r, "by-ip").outcome()).isEqualTo(Verdict.PASS);
        assertThat(check(r, "by-host-id").outcome()).isEqualTo(Verdict.PASS);
    }

    @Test
    void selfTestsThatFindNothingMakeTheRunInvalid() {
        List<NodeInfo> noControl = afterRemoval();
        noControl.removeIf(n -> n.name().equals("keep-1"));
        GoneDecision.Result r = decide(noControl, List.of(KEEP_SECRET), Pattern.compile("^new-"), List.of());
        assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(check(r, "by-ip").outcome()).isEqualTo(Verdict.INVALID);
        assertThat(check(r, "by-host-id").outcome()).isEqualTo(Verdict.INVALID);
        assertThat(check(r, "by-name").outcome()).isEqualTo(Verdict.INVALID);

        GoneDecision.Result noSecrets = decide(afterRemoval(), List.of(), null, List.of());
        assertThat(check(noSecrets, "new-secrets").outcome()).isEqualTo(Verdict.INVALID);

        GoneDecision.Result failed = GoneDecision.decide(BASE,
                new GoneDecision.Evidence(AFTER, null, null, null, List.of(), "Nodes: HTTP 429"), null, List.of());
        assertThat(failed.verdict()).isEqualTo(Verdict.INVALID);
    }
}
