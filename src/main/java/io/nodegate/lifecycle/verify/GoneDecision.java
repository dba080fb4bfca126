package io.nodegate.lifecycle.verify;

import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.model.Condition;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.SecretMeta;
import io.nodegate.lifecycle.baseline.BaselineCollector;
import io.nodegate.lifecycle.gate.EtcdMembership;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * "Nothing came back" after removal, as a pure function. Every query that must find nothing is first run with
 * inputs that must find something (the positive control's values, a time before the oldest node); a self-test
 * that finds nothing makes the run INVALID, because then "0 found" proves nothing.
 */
public final class GoneDecision {

    private GoneDecision() {
    }

    /** What verify-gone read. Null collectionError means every call answered. */
    public record Evidence(Instant observedAt, List<NodeInfo> nodes, List<SecretMeta> nodePasswordSecrets,
                           Map<String, LeaseInfo> targetLeases, List<EtcdEndpointReport> etcd, String collectionError) {
        public Evidence {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
            nodePasswordSecrets = nodePasswordSecrets == null ? List.of() : List.copyOf(nodePasswordSecrets);
            targetLeases = targetLeases == null ? Map.of() : new LinkedHashMap<>(targetLeases);
            etcd = etcd == null ? List.of() : List.copyOf(etcd);
        }
    }

    /** The verdict and every check; a check whose input was not given is among them as "not checked", never PASS. */
    public record Result(Verdict verdict, List<Check> checks) {
        public Result {
            checks = List.copyOf(checks);
        }

        /** The ids of the checks that were not run ("etcd", "fleet"): the summary line and the record name them. */
        @com.fasterxml.jackson.annotation.JsonProperty("notChecked")
        public List<String> notChecked() {
            return Check.notCheckedIds(checks);
        }

        public List<String> findings() {
            return checks.stream().filter(c -> c.outcome() != Verdict.PASS && c.outcome() != Verdict.NOT_CHECKED)
                    .flatMap(c -> c.reasons().stream().map(r -> "(" + c.id() + ") " + r)).toList();
        }
    }

    public static Result decide(Baseline baseline, Evidence ev, Pattern namePattern, List<String> extraIps) {
        List<Check> checks = new ArrayList<>();
        String error = ev.collectionError();
        if (error == null) {
            error = ev.etcd().stream().filter(r -> !r.ok()).map(r -> "etcd endpoint " + r.endpoint() + ": " + r.error())
                    .findFirst().orElse(null);
        }
        if (error != null) {
            checks.add(new Check("collection", "every API call answered", Verdict.INVALID,
                    List.of("call failed: " + error + "; nothing this run saw can be trusted"), Map.of()));
            return new Result(Verdict.INVALID, checks);
        }
        Instant since = baseline.baselineTs().truncatedTo(ChronoUnit.SECONDS);
        Set<String> stillTargets = remainingTargets(baseline, ev.nodes());

        // 1. Nodes created since the baseline
        Instant oldest = ev.nodes().stream().map(NodeInfo::created).filter(Objects::nonNull).min(Comparator.naturalOrder())
                .orElse(null);
        checks.add(query("new-nodes", "no Node created after BASELINE_TS " + since,
                oldest == null ? List.of() : names(ev.nodes(), n -> n.created() != null && !n.created().isBefore(oldest.minusSeconds(1))),
                "creation query with the time moved before the oldest node (" + oldest + ")",
                names(ev.nodes(), n -> n.created() == null || !n.created().isBefore(since)).stream()
                        .map(name -> "Node " + name + " created " + created(ev.nodes(), name) + " (after the baseline)").toList()));

        // 2. node-password Secrets created since the baseline
        if (baseline.usesNodePasswords()) {
            Instant oldestSecret = ev.nodePasswordSecrets().stream().map(SecretMeta::created).filter(Objects::nonNull)
                    .min(Comparator.naturalOrder()).orElse(null);
            List<String> selfTest = oldestSecret == null ? List.of() : ev.nodePasswordSecrets().stream()
                    .filter(s -> s.created() != null && !s.created().isBefore(oldestSecret.minusSeconds(1)))
                    .map(SecretMeta::name).toList();
            List<String> found = ev.nodePasswordSecrets().stream()
                    .filter(s -> s.created() == null || !s.created().isBefore(since))
                    .map(s -> "Secret kube-system/" + s.name() + " created " + s.created()).toList();
            checks.add(query("new-secrets", "no node-password Secret created after BASELINE_TS", selfTest,
                    "creation query with the time moved before the oldest node-password Secret", found));
        } else {
            List<String> found = ev.nodePasswordSecrets().stream()
                    .map(s -> "Secret kube-system/" + s.name() + " created " + s.created()
                            + " (the baseline had no node-password Secrets)").toList();
            checks.add(new Check("new-secrets", "no node-password Secret created after BASELINE_TS",
                    found.isEmpty() ? Verdict.PASS : Verdict.FAIL, found,
                    Map.of("note", "the cluster used no node-password Secrets at the baseline")));
        }

        // 3. Nodes carrying a target's IP (or one given with --ip)
        Map<String, String> ipOwner = new LinkedHashMap<>();
        baseline.targets().forEach(t -> t.internalIps().forEach(ip -> ipOwner.put(ip, t.name())));
        extraIps.forEach(ip -> ipOwner.putIfAbsent(ip, "--ip"));
        Predicate<NodeInfo> notRemaining = n -> !stillTargets.contains(n.name());
        List<String> byIp = new ArrayList<>();
        for (NodeInfo n : ev.nodes()) {
            if (notRemaining.test(n)) {
                n.addresses().stream().filter(a -> ipOwner.containsKey(a.address())).forEach(a -> byIp.add(
                        "Node " + n.name() + " has address " + a.address() + " of " + ipOwner.get(a.address())));
            }
        }
        Set<String> controlIps = new TreeSet<>(baseline.control().internalIps());
        checks.add(query("by-ip", "no Node with a target's IP " + ipOwner.keySet(),
                names(ev.nodes(), n -> n.addresses().stream().anyMatch(a -> controlIps.contains(a.address()))),
                "IP query with the control node's " + controlIps, byIp));

        // 4. Nodes carrying a target's systemUUID or machineID: a host follows its firmware, not its name
        List<String> byId = new ArrayList<>();
        for (NodeInfo n : ev.nodes()) {
            if (!notRemaining.test(n)) {
                continue;
            }
            for (Baseline.Target t : baseline.targets()) {
                NodeSystemInfo si = n.systemInfo();
                if (NodeSystemInfo.isMeaningfulId(t.systemUuid()) && t.systemUuid().equalsIgnoreCase(String.valueOf(si.systemUuid()))) {
                    byId.add("Node " + n.name() + " has systemUUID " + si.systemUuid() + " of target " + t.name()
                            + ": the same host came back" + (n.name().equals(t.name()) ? "" : " under a new name"));
                } else if (NodeSystemInfo.isMeaningfulId(t.machineId()) && t.machineId().equals(si.machineId())) {
                    byId.add("Node " + n.name() + " has machineID " + si.machineId() + " of target " + t.name());
                }
            }
        }
        String cUuid = baseline.control().systemUuid();
        checks.add(query("by-host-id", "no Node with a target's systemUUID or machineID",
                names(ev.nodes(), n -> cUuid != null && cUuid.equalsIgnoreCase(String.valueOf(n.systemInfo().systemUuid()))),
                "systemUUID query with the control node's " + cUuid, byId));

        // 5. Name pattern of the receiving side
        if (namePattern != null) {
            Pattern controlPattern = Pattern.compile(Pattern.quote(baseline.control().name()));
            List<String> byName = names(ev.nodes(), n -> namePattern.matcher(n.name()).find()).stream()
                    .map(n -> "Node " + n + " matches --name-pattern " + namePattern.pattern()).toList();
            checks.add(query("by-name", "no Node named like " + namePattern.pattern(),
                    names(ev.nodes(), n -> controlPattern.matcher(n.name()).find()),
                    "name query with the control node's name", byName));
        }

        // 6. etcd membership (a comparison without an etcd source did not run: say so, never PASS)
        checks.add(etcd(baseline, ev.etcd(), ev.nodes()));

        // 7. Targets not yet removed: still silent, same boot, same Lease
        List<String> moved = new ArrayList<>();
        Map<String, String> evid = new LinkedHashMap<>();
        for (Baseline.Target t : baseline.targets()) {
            NodeInfo n = ev.nodes().stream().filter(x -> x.name().equals(t.name())).findFirst().orElse(null);
            if (n == null) {
                evid.put(t.name(), "removed (NotFound)");
                continue;
            }
            if (!Objects.equals(t.uid(), n.uid())) {
                moved.add(t.name() + " was recreated (uid " + t.uid() + " -> " + n.uid() + "): the host registered again");
                continue;
            }
            Condition ready = n.condition("Ready");
            Instant hb = ready == null ? null : ready.lastHeartbeatTime();
            LeaseInfo lease = ev.targetLeases().get(t.name());
            Instant renew = lease == null ? null : lease.renewTime();
            evid.put(t.name(), "bootID " + n.systemInfo().bootId() + ", heartbeat " + hb + ", lease " + renew);
            if (!Objects.equals(t.bootId(), n.systemInfo().bootId())) {
                moved.add(t.name() + " bootID changed " + t.bootId() + " -> " + n.systemInfo().bootId());
            }
            if (!Objects.equals(t.readyLastHeartbeat(), hb)) {
                moved.add(t.name() + " Ready heartbeat moved " + t.readyLastHeartbeat() + " -> " + hb);
            }
            if (!Objects.equals(t.leaseRenewTime(), renew)) {
                moved.add(t.name() + " Lease renewTime moved " + t.leaseRenewTime() + " -> "
                        + (lease == null ? "NotFound" : renew));
            }
        }
        checks.add(new Check("remaining-targets", "targets not yet removed are unchanged",
                moved.isEmpty() ? Verdict.PASS : Verdict.FAIL, moved, evid));

        Verdict v = Verdict.PASS;
        for (Check c : checks) {
            v = Verdict.worst(v, c.outcome());
        }
        return new Result(v, checks);
    }

    private static Check query(String id, String title, List<String> selfTestFound, String selfTest, List<String> found) {
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("selfTest", selfTest + " -> " + summary(selfTestFound));
        if (selfTestFound.isEmpty()) {
            return new Check(id, title, Verdict.INVALID,
                    List.of("self-test found nothing (" + selfTest + "): this query's '0 found' proves nothing"), evid);
        }
        return new Check(id, title, found.isEmpty() ? Verdict.PASS : Verdict.FAIL, found, evid);
    }

    /**
     * The members now equal the baseline's, except that a removed target's own member may be gone: a server target
     * is removed from etcd first ("etcd first"), so its member's absence is the procedure, not a change.
     */
    private static Check etcd(Baseline baseline, List<EtcdEndpointReport> reports, List<NodeInfo> nodes) {
        if (baseline.etcdMembers() == null && reports.isEmpty()) {
            return Check.notChecked("etcd", "etcd members unchanged", "no etcd source at the baseline or now (give "
                    + "--etcd-endpoint to both): the members were not compared");
        }
        if (baseline.etcdMembers() == null || reports.isEmpty()) {
            return new Check("etcd", "etcd members unchanged", Verdict.INVALID,
                    List.of(baseline.etcdMembers() == null ? "etcd given now but not recorded in the baseline"
                            : "the baseline recorded etcd members but no etcd source was given now"), Map.of());
        }
        TreeSet<String> before = new TreeSet<>();
        baseline.etcdMembers().forEach(m -> before.add(m.id()));
        TreeSet<String> after = new TreeSet<>();
        BaselineCollector.etcdMembers(reports).forEach(m -> after.add(m.id()));
        Map<String, String> evid = new LinkedHashMap<>();
        evid.put("members", after.toString());
        for (Baseline.EtcdMemberRef m : baseline.etcdMembers()) {
            if (after.contains(m.id())) {
                continue;
            }
            for (Baseline.Target t : baseline.targets()) {
                String how = nodes.stream().anyMatch(n -> n.name().equals(t.name())) ? null
                        : EtcdMembership.howExactly(
                        EtcdMembership.Identity.of(t), m.name(), m.peerUrls());
                if (how != null) {
                    before.remove(m.id());
                    evid.put("member " + m.id() + " gone", "removed target " + t.name() + "'s own (by " + how + ")");
                    break;
                }
            }
        }
        return new Check("etcd", "etcd members unchanged", before.equals(after) ? Verdict.PASS : Verdict.FAIL,
                before.equals(after) ? List.of() : List.of("etcd members " + after + ", baseline " + before
                        + (evid.size() > 1 ? " without the removed targets' own" : "")), evid);
    }

    /** A self-test's answer, short: at 32 nodes the whole list is about 1,000 characters on one line. */
    public static String summary(List<String> found) {
        if (found.size() <= 3) {
            return found.toString();
        }
        return "[" + String.join(", ", found.subList(0, 3)) + ", … " + found.size() + " in all]";
    }

    private static Set<String> remainingTargets(Baseline baseline, List<NodeInfo> nodes) {
        Set<String> out = new TreeSet<>();
        for (Baseline.Target t : baseline.targets()) {
            nodes.stream().filter(n -> n.name().equals(t.name()) && Objects.equals(n.uid(), t.uid()))
                    .findFirst().ifPresent(n -> out.add(n.name()));
        }
        return out;
    }

    private static List<String> names(List<NodeInfo> nodes, Predicate<NodeInfo> p) {
        return nodes.stream().filter(p).map(NodeInfo::name).toList();
    }

    private static String created(List<NodeInfo> nodes, String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).map(n -> String.valueOf(n.created())).findFirst().orElse("?");
    }
}
