package io.nodegate.lifecycle.gate;

import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.Condition;
import io.nodegate.model.DaemonSetInfo;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdMember;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.SecretMeta;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/** The gate as a pure function: every check's firing case and its near miss. */
public class GateDecisionTest {

    static final Instant LEASE = Instant.parse("2026-10-19T06:07:56Z");
    static final Instant REPLY = Instant.parse("2026-10-19T06:09:00Z");
    static final Instant NOW = Instant.parse("2026-10-19T06:55:00Z");

    public static NodeInfo node(String name, String uid, String ready, Map<String, String> labels, String boot, int gpus,
                         String ip, Map<String, String> annotations, boolean cordoned) {
        Map<String, String> cap = new HashMap<>();
        if (gpus > 0) {
            cap.put("nvidia.com/gpu", String.valueOf(gpus));
        }
        Map<String, String> ann = new HashMap<>(Map.of("rke2.io/node-args", "[\"agent\"]"));
        ann.putAll(annotations);
        return new NodeInfo(name, uid, "1", Instant.parse("2026-04-01T00:00:00Z"), labels, ann, List.of(), cordoned,
                null, List.of(new NodeInfo.NodeAddress("InternalIP", ip)),
                List.of(new Condition("Ready", ready, null, null, Instant.parse("2026-10-19T06:05:35Z"),
                        Instant.parse("2026-10-19T06:08:48Z"))),
                new NodeSystemInfo(boot, "uuid-" + name, "mid-" + name, "6.8", null, "v1.34.3+rke2r3", null), cap);
    }

    public static final Map<String, String> BURNIN = Map.of("node-role.kubernetes.io/burnin", "true");
    static final NodeInfo A11 = node("gpu-a11", "uid-a11", "Unknown", BURNIN, "boot-a11", 8, "192.0.2.11", Map.of(), true);
    public static final NodeInfo A10 = node("gpu-a10", "uid-a10", "Unknown", BURNIN, "boot-a10", 8, "192.0.2.10", Map.of(), true);
    public static final NodeInfo KEEP = node("keep-1", "uid-keep", "True", BURNIN, "boot-keep", 8, "192.0.2.50", Map.of(), false);
    public static final NodeInfo CTL = node("ctl-1", "uid-ctl", "True", Map.of("node-role.kubernetes.io/control-plane", "true"),
            "boot-ctl", 0, "10.0.0.1", Map.of(), false);
    static final EtcdMember CTL_MEMBER = new EtcdMember(0xabcL, "ctl-1-7f3a", List.of("https://10.0.0.1:2380"), List.of(), false);

    static Baseline baseline(List<EtcdMember> etcd, List<String> metallb) {
        List<Baseline.Target> targets = new ArrayList<>();
        for (NodeInfo n : List.of(A10, A11)) {
            targets.add(new Baseline.Target(n.name(), n.uid(), "1", n.created(), n.systemInfo().bootId(),
                    n.systemInfo().systemUuid(), n.systemInfo().machineId(), "6.8", "v1.34.3+rke2r3", n.internalIps(),
                    BURNIN, List.of(), true, n.nodeArgs(), Map.of("nvidia.com/gpu", 8L), LEASE, "Unknown",
                    n.condition("Ready").lastHeartbeatTime(),
                    n.name() + ".node-password.rke2"));
        }
        return new Baseline(Baseline.FORMAT, Instant.parse("2026-10-19T05:00:00Z"), "https://cp-vip:6443", "/tmp/e", "rke2",
                "v1.34.3+rke2r3",
                new Baseline.ControlNode("keep-1", "uid-keep", "uuid-keep-1", "mid-keep-1", List.of("192.0.2.50"), 3,
                        "keep-1.node-password.rke2"),
                targets,
                List.of(new Baseline.OtherNode("ctl-1", "uid-ctl", CTL.created(), "True", false),
                        new Baseline.OtherNode("keep-1", "uid-keep", KEEP.created(), "True", false)),
                etcd == null ? null : io.nodegate.lifecycle.baseline.BaselineCollector.etcdMembers(
                        List.of(new EtcdEndpointReport("https://10.0.0.1:2379", null, 1L, etcd, null))),
                List.of(new Baseline.DaemonSetCount("kube-system", "rke2-canal", 4, List.of("gpu-a10", "gpu-a11")),
                        new Baseline.DaemonSetCount("gpu-operator", "dcgm", 3, List.of("gpu-a10", "gpu-a11"))),
                Map.of("nvidia.com/gpu", 24L), metallb,
                List.of(new Baseline.SecretRef("keep-1.node-password.rke2", Instant.parse("2026-05-01T00:00:00Z"), null)));
    }

    public static final Baseline BASE = baseline(null, null);
    public static final SecretMeta KEEP_SECRET = new SecretMeta("kube-system", "keep-1.node-password.rke2", "s1",
            Instant.parse("2026-05-01T00:00:00Z"), null, Map.of());

    static GateEvidence evidence(UnaryOperator<List<NodeInfo>> nodes) {
        List<NodeInfo> ns = nodes.apply(new ArrayList<>(List.of(CTL, KEEP, A10, A11)));
        NodeInfo target = ns.stream().filter(n -> n.name().equals("gpu-a11")).findFirst().orElse(null);
        return GateEvidence.builder(NOW).target(target)
                .targetLease(new LeaseInfo("kube-node-lease", "gpu-a11", "l", null, "gpu-a11", LEASE, 40)).nodes(ns)
                .daemonSets(List.of(new DaemonSetInfo("kube-system", "rke2-canal", 4, 4, 2),
                        new DaemonSetInfo("gpu-operator", "dcgm", 3, 3, 1)))
                .control(KEEP).controlPods(3).controlNodePassword(KEEP_SECRET).build();
    }

    static final GateEvidence GOOD = evidence(UnaryOperator.identity());
    static final GateRequest REQ = new GateRequest("gpu-a11", REPLY, "infra-kim", "15:09 done", null);

    static Check check(GateResult r, String id) {
        return r.checks().stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow();
    }

    static GateEvidence with(GateEvidence e, NodeInfo target, LeaseInfo lease) {
        List<NodeInfo> nodes = new ArrayList<>(e.nodes().stream().filter(n -> !n.name().equals("gpu-a11")).toList());
        if (target != null) {
            nodes.add(target);
        }
        return GateEvidence.builder(e.observedAt()).target(target).targetLease(lease).nodes(nodes)
                .daemonSets(e.daemonSets()).metallbAnnouncers(e.metallbAnnouncers()).etcd(e.etcd()).control(e.control())
                .controlPods(e.controlPods()).controlNodePassword(e.controlNodePassword()).build();
    }

    @Test
    void seedGpuA11Passes() {
        GateResult r = GateDecision.decide(BASE, GOOD, REQ);
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        // without --host-report/--probe-kubelet the run says that step (b) rests on the reply's text alone; without
        // --fleet-context the fleet check says "not checked", never a pass; a worker gets no etcd or redundancy
        // check, and a Node Rancher did not register as a Machine no machine check
        assertThat(r.checks()).extracting(Check::id).containsExactly("collection", "control", "a", "b", "c", "d", "e",
                "host", "bmc", "fleet");
        // none is ever a PASS: all are NOT_CHECKED, named by the run, and give no reason for the verdict
        assertThat(check(r, "host").outcome()).isEqualTo(Verdict.NOT_CHECKED);
        assertThat(check(r, "host").reasons()).containsExactly("no --host-report or --probe-kubelet given: the "
                + "cleanup (b) rests on the reply's text alone");
        assertThat(check(r, "fleet").outcome()).isEqualTo(Verdict.NOT_CHECKED);
        assertThat(check(r, "bmc").outcome()).isEqualTo(Verdict.NOT_CHECKED);
        assertThat(r.notChecked()).containsExactly("host", "bmc", "fleet");
        assertThat(r.reasons()).isEmpty();
        assertThat(check(r, "c").evidence()).containsEntry("leaseRenewTime", "2026-10-19T06:07:56Z")
                .containsEntry("leaseStoppedBeforeRemovedAt", "1m4s");
    }

    @Test
    void timeMatchWindowEdges() {
        LeaseInfo lease = GOOD.targetLease();
        GateRequest atEdge = new GateRequest("gpu-a11", LEASE.plus(Duration.ofMinutes(5)), null, null, null);
        assertThat(GateDecision.decide(BASE, GOOD, atEdge).verdict()).isEqualTo(Verdict.PASS);
        GateRequest past = new GateRequest("gpu-a11", LEASE.plus(Duration.ofMinutes(5)).plusSeconds(1), null, null, null);
        GateResult r = GateDecision.decide(BASE, GOOD, past);
        assertThat(r.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "c").reasons().get(0)).contains("5m1s before the reported removal");
        GateRequest before = new GateRequest("gpu-a11", LEASE.minus(Duration.ofMinutes(4)), null, null, null);
        GateResult r2 = GateDecision.decide(BASE, GOOD, before);
        assertThat(r2.verdict()).isEqualTo(Verdict.PASS);
        GateRequest wide = new GateRequest("gpu-a11", LEASE.plus(Duration.ofMinutes(9)), null, null, Duration.ofMinutes(10));
        assertThat(GateDecision.decide(BASE, GOOD, wide).verdict()).isEqualTo(Verdict.PASS);
        assertThat(lease).isNotNull();
    }

    @Test
    void seedGpuA10LeaseFrozenDaysEarlierHolds() {
        LeaseInfo frozen = new LeaseInfo("kube-node-lease", "gpu-a11", "l", null, "gpu-a11",
                Instant.parse("2026-10-15T05:23:42Z"), 40);
        GateResult r = GateDecision.decide(BASE, with(GOOD, A11, frozen), REQ);
        assertThat(r.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "c").evidence()).containsKeys("leaseRenewTime", "readyLastHeartbeatTime",
                "readyLastTransitionTime", "bootID");
        assertThat(check(r, "c").reasons().get(0)).contains("4d before");
    }

    @Test
    void missingRemovalTimeHolds() {
        GateResult r = GateDecision.decide(BASE, GOOD, new GateRequest("gpu-a11", null, null, null, null));
        assertThat(r.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "b").outcome()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "c").outcome()).isEqualTo(Verdict.HOLD);
    }

    @Test
    void missingLeaseHolds() {
        GateResult r = GateDecision.decide(BASE, with(GOOD, A11, null), REQ);
        assertThat(r.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "c").reasons().get(0)).contains("not found");
    }

    @Test
    void readyTrueFails() {
        NodeInfo alive = node("gpu-a11", "uid-a11", "True", BURNIN, "boot-a11", 8, "192.0.2.11", Map.of(), true);
        GateResult r = GateDecision.decide(BASE, with(GOOD, alive, GOOD.targetLease()), REQ);
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(check(r, "c").reasons()).containsExactly("Ready=True: the kubelet is alive and reporting");
        NodeInfo notReady = node("gpu-a11", "uid-a11", "False", BURNIN, "boot-a11", 8, "192.0.2.11", Map.of(), true);
        assertThat(GateDecision.decide(BASE, with(GOOD, notReady, GOOD.targetLease()), REQ).verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void serverRolesAndEtcdMembershipFail() {
        for (String role : List.of("control-plane", "etcd", "master")) {
            NodeInfo server = node("gpu-a11", "uid-a11", "Unknown", Map.of("node-role.kubernetes.io/" + role, "true"),
                    "boot-a11", 8, "192.0.2.11", Map.of(), true);
            GateResult r = GateDecision.decide(BASE, with(GOOD, server, GOOD.targetLease()), REQ);
            assertThat(check(r, "a").outcome()).as(role).isEqualTo(Verdict.FAIL);
        }
        NodeInfo annotated = node("gpu-a11", "uid-a11", "Unknown", BURNIN, "boot-a11", 8, "192.0.2.11",
                Map.of("etcd.k3s.cattle.io/node-name", "gpu-a11-1a2b"), true);
        assertThat(check(GateDecision.decide(BASE, with(GOOD, annotated, GOOD.targetLease()), REQ), "a").outcome())
                .isEqualTo(Verdict.FAIL);

        // a worker that joined etcd with a server token: member by peer address, then by name. With the member
        // lists read now, check [etcd] judges membership (and names the member to remove)
        EtcdMember byPeer = new EtcdMember(0xdefL, "something-else", List.of("https://192.0.2.11:2380"), List.of(), false);
        Baseline withEtcd = baseline(List.of(CTL_MEMBER, byPeer), null);
        GateResult r = GateDecision.decide(withEtcd, etcdNow(GOOD, List.of(CTL_MEMBER, byPeer)), REQ);
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(check(r, "etcd").reasons()).anySatisfy(s -> assertThat(s)
                .contains("peer address https://192.0.2.11:2380", "etcdctl member remove def"));
        EtcdMember byName = new EtcdMember(0xdefL, "gpu-a11-99ff", List.of("https://10.9.9.9:2380"), List.of(), false);
        GateResult r2 = GateDecision.decide(baseline(List.of(CTL_MEMBER, byName), null),
                etcdNow(GOOD, List.of(CTL_MEMBER, byName)), REQ);
        assertThat(check(r2, "etcd").reasons()).anySatisfy(s -> assertThat(s).contains("by name gpu-a11-99ff"));
        // without an etcd source now, the baseline's membership keeps (a) failing
        GateResult r4 = GateDecision.decide(withEtcd, GOOD, REQ);
        assertThat(check(r4, "a").reasons()).anySatisfy(s -> assertThat(s).contains("was etcd member def at the baseline",
                "peer address https://192.0.2.11:2380"));
        // near miss: a member whose name only shares a prefix
        EtcdMember other = new EtcdMember(0xdefL, "gpu-a111-99ff", List.of("https://192.0.2.111:2380"), List.of(), false);
        GateResult r3 = GateDecision.decide(baseline(List.of(CTL_MEMBER, other), null),
                etcdNow(GOOD, List.of(CTL_MEMBER, other)), REQ);
        assertThat(r3.verdict()).as(r3.reasons().toString()).isEqualTo(Verdict.PASS);
    }

    static GateEvidence etcdNow(GateEvidence e, List<EtcdMember> members) {
        return GateEvidence.builder(e.observedAt()).target(e.target()).targetLease(e.targetLease()).nodes(e.nodes())
                .daemonSets(e.daemonSets()).metallbAnnouncers(e.metallbAnnouncers())
                .etcd(List.of(new EtcdEndpointReport("https://10.0.0.1:2379", null, 1L, members, null)))
                .control(e.control()).controlPods(e.controlPods()).controlNodePassword(e.controlNodePassword()).build();
    }

    @Test
    void notATargetFails() {
        GateResult r = GateDecision.decide(BASE, GOOD, new GateRequest("keep-1", REPLY, null, null, null));
        assertThat(check(r, "a").reasons().get(0)).contains("not in the baseline's targets");
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
    }

    @Test
    void reRegistrationFails() {
        record Case(String what, NodeInfo node, String reason) {
        }
        Map<String, String> ann = Map.of("rke2.io/node-args", "[\"agent\",\"--server\",\"https://cluster-b:9345\"]");
        List<Case> cases = List.of(
                new Case("boot", node("gpu-a11", "uid-a11", "Unknown", BURNIN, "boot-new", 8, "192.0.2.11", Map.of(), true), "bootID changed"),
                new Case("args", node("gpu-a11", "uid-a11", "Unknown", BURNIN, "boot-a11", 8, "192.0.2.11", ann, true), "node-args"),
                new Case("roles", node("gpu-a11", "uid-a11", "Unknown", Map.of(), "boot-a11", 8, "192.0.2.11", Map.of(), true), "role labels changed"),
                new Case("uid", node("gpu-a11", "uid-other", "Unknown", BURNIN, "boot-a11", 8, "192.0.2.11", Map.of(), true), "recreated"));
        for (Case c : cases) {
            GateResult r = GateDecision.decide(BASE, with(GOOD, c.node(), GOOD.targetLease()), REQ);
            assertThat(r.verdict()).as(c.what()).isEqualTo(Verdict.FAIL);
            assertThat(check(r, "e").reasons()).as(c.what()).anySatisfy(s -> assertThat(s).contains(c.reason()));
        }
    }

    @Test
    void baselineChangesHoldAndAreNamed() {
        NodeInfo keepCordoned = node("keep-1", "uid-keep", "True", BURNIN, "boot-keep", 8, "192.0.2.50", Map.of(), true);
        NodeInfo newcomer = node("new-01", "uid-new", "True", Map.of(), "boot-x", 8, "198.51.100.1", Map.of(), false);
        GateResult r = GateDecision.decide(BASE, evidence(ns -> {
            ns.replaceAll(n -> n.name().equals("keep-1") ? keepCordoned : n);
            ns.add(newcomer);
            return ns;
        }), REQ);
        assertThat(r.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "d").reasons()).anySatisfy(s -> assertThat(s).contains("keep-1 unschedulable false -> true"))
                .anySatisfy(s -> assertThat(s).contains("new node new-01"))
                .anySatisfy(s -> assertThat(s).contains("GPU totals {nvidia.com/gpu=32}, expected {nvidia.com/gpu=24}"));

        GateResult gone = GateDecision.decide(BASE, evidence(ns -> {
            ns.removeIf(n -> n.name().equals("ctl-1"));
            return ns;
        }), REQ);
        assertThat(check(gone, "d").reasons()).anySatisfy(s -> assertThat(s).contains("ctl-1 is gone"));
    }

    @Test
    void removedTargetsShareIsSubtracted() {
        // gpu-a10 already removed: DaemonSets and GPUs must have dropped by its share, and nothing else
        GateEvidence dropped = evidence(ns -> {
            ns.removeIf(n -> n.name().equals("gpu-a10"));
            return ns;
        });
        GateEvidence ok = GateEvidence.builder(NOW).target(dropped.target()).targetLease(dropped.targetLease())
                .nodes(dropped.nodes()).daemonSets(List.of(new DaemonSetInfo("kube-system", "rke2-canal", 3, 3, 2),
                        new DaemonSetInfo("gpu-operator", "dcgm", 2, 2, 1)))
                .control(KEEP).controlPods(3).controlNodePassword(KEEP_SECRET).build();
        GateResult r = GateDecision.decide(BASE, ok, REQ);
        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(check(r, "d").evidence()).containsEntry("targetsAlreadyRemoved", "[gpu-a10]");
        // near miss: desired did not drop
        GateResult stale = GateDecision.decide(BASE, GateEvidence.builder(NOW).target(dropped.target())
                .targetLease(dropped.targetLease()).nodes(dropped.nodes()).daemonSets(GOOD.daemonSets()).control(KEEP)
                .controlPods(3).controlNodePassword(KEEP_SECRET).build(), REQ);
        assertThat(check(stale, "d").reasons()).anySatisfy(s -> assertThat(s)
                .contains("DaemonSet kube-system/rke2-canal desired 4, expected 3"));
    }

    @Test
    void etcdAndMetallbChangesHold() {
        EtcdMember joined = new EtcdMember(0x123L, "gpu-a07", List.of("https://192.0.2.7:2380"), List.of(), false);
        Baseline withEtcd = baseline(List.of(CTL_MEMBER), List.of("default/ingress=keep-1"));
        GateEvidence same = GOOD.toBuilder().target(A11)
                .metallbAnnouncers(List.of("default/ingress=keep-1"))
                .etcd(List.of(new EtcdEndpointReport("e", null, 1L, List.of(CTL_MEMBER), null))).build();
        assertThat(GateDecision.decide(withEtcd, same, REQ).verdict()).isEqualTo(Verdict.PASS);
        GateEvidence changed = GOOD.toBuilder().target(A11)
                .metallbAnnouncers(List.of("default/ingress=ctl-1"))
                .etcd(List.of(new EtcdEndpointReport("e", null, 1L, List.of(CTL_MEMBER, joined), null))).build();
        GateResult r = GateDecision.decide(withEtcd, changed, REQ);
        assertThat(r.verdict()).isEqualTo(Verdict.HOLD);
        assertThat(check(r, "d").reasons()).anySatisfy(s -> assertThat(s).contains("etcd members changed: gone [], new [123]"))
                .anySatisfy(s -> assertThat(s).contains("MetalLB announcers [default/ingress=ctl-1]"));
        GateEvidence noSource = GOOD.toBuilder().target(A11)
                .metallbAnnouncers(List.of("default/ingress=keep-1")).etcd(List.of()).build();
        assertThat(check(GateDecision.decide(withEtcd, noSource, REQ), "d").reasons())
                .containsExactly("the baseline recorded etcd members but no etcd source was given now");
    }

    @Test
    void untrustworthyEvidenceIsInvalidAndOutranksFail() {
        assertThat(GateDecision.decide(BASE, GateEvidence.failed(NOW, "Nodes: HTTP 500"), REQ).verdict())
                .isEqualTo(Verdict.INVALID);
        GateEvidence etcdDown = GOOD.toBuilder().target(A11).metallbAnnouncers(null)
                .etcd(List.of(EtcdEndpointReport.failed("https://10.0.0.1:2379", "deadline exceeded"))).build();
        assertThat(GateDecision.decide(BASE, etcdDown, REQ).verdict()).isEqualTo(Verdict.INVALID);

        NodeInfo alive = node("gpu-a11", "uid-a11", "True", BURNIN, "boot-a11", 8, "192.0.2.11", Map.of(), true);
        record Ctl(String what, NodeInfo control, Integer pods, SecretMeta secret, String reason) {
        }
        NodeInfo keepDown = node("keep-1", "uid-keep", "Unknown", BURNIN, "boot-keep", 8, "192.0.2.50", Map.of(), false);
        for (Ctl c : List.of(new Ctl("missing", null, null, null, "not found"),
                new Ctl("not ready", keepDown, 3, KEEP_SECRET, "not Ready"),
                new Ctl("no pods", KEEP, 0, KEEP_SECRET, "found no pod"),
                new Ctl("no secret", KEEP, 3, null, "node-password Secret"))) {
            List<NodeInfo> ns = new ArrayList<>(List.of(CTL, A10, alive));
            GateEvidence e = GOOD.toBuilder().target(alive).nodes(ns).metallbAnnouncers(null).etcd(List.of())
                    .control(c.control()).controlPods(c.pods()).controlNodePassword(c.secret()).build();
            GateResult r = GateDecision.decide(BASE, e, REQ);
            assertThat(r.verdict()).as(c.what()).isEqualTo(Verdict.INVALID);
            assertThat(check(r, "control").reasons()).as(c.what()).anySatisfy(s -> assertThat(s).contains(c.reason()));
        }
    }

    @Test
    void clusterWithoutNodePasswordsNeedsNoControlSecret() {
        Baseline k8s = new Baseline(BASE.format(), BASE.baselineTs(), BASE.server(), BASE.evidenceDir(), null, null,
                BASE.control(), BASE.targets(), BASE.nonTargets(), null, BASE.daemonSets(), BASE.gpuTotals(), null, List.of());
        GateEvidence e = GOOD.toBuilder().target(A11).metallbAnnouncers(null).etcd(List.of()).control(KEEP)
                .controlPods(3).controlNodePassword(null).build();
        assertThat(GateDecision.decide(k8s, e, REQ).verdict()).isEqualTo(Verdict.PASS);
        assertThat(GateDecision.decide(BASE, e, REQ).verdict()).isEqualTo(Verdict.INVALID);
    }

    @Test
    void targetAlreadyGoneFails() {
        GateResult r = GateDecision.decide(BASE, with(GOOD, null, null), REQ);
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(check(r, "a").reasons().get(0)).contains("not found");
    }
}
