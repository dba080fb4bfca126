package io.nodegate.lifecycle.verify;

import io.nodegate.probe.KubeletEvidence;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.gate.HostInputs;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.probe.KubeletProbe;
import java.security.cert.X509Certificate;
import java.util.ArrayList;

import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.CollectionException;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.lifecycle.rejoin.RejoinReader;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.bmc.BmcReadings;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Gathers verify-gone's evidence, decides, and records the run. */
public final class GoneVerifier {

    private final ApiReader api;
    private final EvidenceStore store;
    private final Clock clock;
    /** What the removed hosts' BMCs said (--bmc), read before the run; null when none was given. */
    private final BmcReadings bmc;
    /** Where `nodegate remove` records tombstones: the rejoin check reads the removed targets' there. */
    private final String ledgerNamespace;
    /** Rancher's management cluster for the rejoin check (a custom node's Machine and registration token), or null. */
    private final RejoinReader.Management management;

    public GoneVerifier(ApiReader api, EvidenceStore store, Clock clock) {
        this(api, store, clock, null, TombstoneBook.DEFAULT_NAMESPACE, null);
    }

    private GoneVerifier(ApiReader api, EvidenceStore store, Clock clock, BmcReadings bmc,
                         String ledgerNamespace, RejoinReader.Management management) {
        this.api = api;
        this.store = store;
        this.clock = clock;
        this.bmc = bmc;
        this.ledgerNamespace = ledgerNamespace;
        this.management = management;
    }

    /** This verifier also showing each removed host's power state from its BMC; null: none given, "not checked". */
    public GoneVerifier withBmc(BmcReadings readings) {
        return new GoneVerifier(api, store, clock, readings, ledgerNamespace, management);
    }

    /** This verifier reading the tombstone ledger in {@code namespace} for its rejoin check. */
    public GoneVerifier withLedgerNamespace(String namespace) {
        return new GoneVerifier(api, store, clock, bmc, namespace, management);
    }

    /** This verifier's rejoin check also reading Rancher's management cluster ({@code null}: not given). */
    public GoneVerifier withManagement(RejoinReader.Management rancher) {
        return new GoneVerifier(api, store, clock, bmc, ledgerNamespace, rancher);
    }

    public record Record(String kind, Instant verifiedAt, String baselineFile, Instant baselineTs, String namePattern,
                         List<String> ips, GoneDecision.Result result) {
        public static final String KIND = "nodegate.io/verify-gone-record";
    }

    public record Run(GoneDecision.Result result, Path recordFile) {
    }

    public Run verify(Baseline baseline, Path baselineFile, Pattern namePattern, List<String> ips,
                      List<EtcdEndpointReport> etcd) {
        return verify(baseline, baselineFile, namePattern, ips, etcd, null);
    }

    /** @param probe with --probe-kubelets: the kubelet port and timeout; null = no probe */
    public Run verify(Baseline baseline, Path baselineFile, Pattern namePattern, List<String> ips,
                      List<EtcdEndpointReport> etcd, HostInputs.Probe probe) {
        return verify(baseline, baselineFile, namePattern, ips, etcd, probe, null, null);
    }

    /**
     * @param fleet      the other clusters' Nodes (--fleet-context); null when none was given
     * @param fleetError why reading one of them failed: the run is then INVALID
     */
    public Run verify(Baseline baseline, Path baselineFile, Pattern namePattern, List<String> ips,
                      List<EtcdEndpointReport> etcd, HostInputs.Probe probe,
                      List<NamedView> fleet, String fleetError) {
        store.ensureWritable();
        GoneDecision.Evidence ev = collect(baseline, etcd);
        if (fleetError != null && ev.collectionError() == null) {
            ev = new GoneDecision.Evidence(ev.observedAt(), null, null, null, etcd, "fleet cluster " + fleetError);
        }
        GoneDecision.Result result = GoneDecision.decide(baseline, ev, namePattern, ips);
        if (ev.collectionError() == null) {
            // each look that needs a flag is "not checked" without it, never a PASS
            result = withCheck(result, probe != null ? probeRemovedTargets(baseline, ev, probe)
                    : Check.notChecked(GoneKubeletCheck.ID, GoneKubeletCheck.TITLE, "no --probe-kubelets given: "
                    + "whether RKE2 still answers on the removed hosts' kubelet ports was not checked"));
            // without a fleet flag this is "not checked"
            result = withCheck(result, WhereRemovedHostsWent.check(baseline, ev.nodes(), fleet));
        }
        if (ev.collectionError() == null) {
            // without --bmc this is "not checked"
            result = withCheck(result, GoneBmcCheck.check(baseline, ev.nodes(), bmc));
            result = withCheck(result, GoneRejoinCheck.check(rejoin(baseline, ev)));
        }
        Record rec = new Record(Record.KIND, ev.observedAt(), baselineFile == null ? null : baselineFile.toAbsolutePath().toString(),
                baseline.baselineTs(), namePattern == null ? null : namePattern.pattern(), ips, result);
        Path file = store.writeJson("verify-gone-" + EvidenceStore.stamp(ev.observedAt()) + ".json", rec);
        return new Run(result, file);
    }

    private GoneDecision.Evidence collect(Baseline baseline, List<EtcdEndpointReport> etcd) {
        try {
            List<NodeInfo> nodes = api.nodes();
            var secrets = api.nodePasswordSecrets();
            Map<String, LeaseInfo> leases = new LinkedHashMap<>();
            for (Baseline.Target t : baseline.targets()) {
                if (nodes.stream().anyMatch(n -> n.name().equals(t.name()))) {
                    api.lease(t.name()).ifPresent(l -> leases.put(t.name(), l));
                }
            }
            return new GoneDecision.Evidence(clock.instant(), nodes, secrets, leases, etcd, null);
        } catch (CollectionException e) {
            return new GoneDecision.Evidence(clock.instant(), null, null, null, etcd, e.getMessage());
        }
    }

    /** rejoin-risk's answer for the targets whose Node is gone, followed by the baseline's identities. */
    private RejoinReader.Report rejoin(Baseline baseline, GoneDecision.Evidence ev) {
        List<String> gone = new ArrayList<>();
        Map<String, RejoinReader.Known> known = new LinkedHashMap<>();
        for (Baseline.Target t : baseline.targets()) {
            if (ev.nodes().stream().noneMatch(n -> n.name().equals(t.name()))) {
                gone.add(t.name());
                known.put(t.name(), new RejoinReader.Known(t.systemUuid(), t.machineId()));
            }
        }
        if (gone.isEmpty()) {
            return new RejoinReader.Report(ev.observedAt(), ledgerNamespace, List.of());
        }
        return new RejoinReader(api, clock, ledgerNamespace, management)
                .answer(gone, List.of(), known);
    }

    /** The removed targets (Node NotFound now), knocked on at their baseline InternalIP; a failed CA read is a Check. */
    private Check probeRemovedTargets(Baseline baseline, GoneDecision.Evidence ev, HostInputs.Probe probe) {
        List<KubeletProbe.Target> targets = new ArrayList<>();
        for (Baseline.Target t : baseline.targets()) {
            if (ev.nodes().stream().noneMatch(n -> n.name().equals(t.name()))) {
                targets.add(new KubeletProbe.Target(t.name(), t.internalIps().isEmpty() ? null : t.internalIps().get(0)));
            }
        }
        try {
            KubeletEvidence kubelets = new KubeletEvidence(api, probe.port(),
                    probe.timeout());
            List<X509Certificate> cas = kubelets.clusterCas().certificates();
            return GoneKubeletCheck.check(new KubeletProbe(probe.port(), probe.timeout(), cas).probeAll(targets));
        } catch (CollectionException e) {
            return new Check(GoneKubeletCheck.ID, GoneKubeletCheck.TITLE, Verdict.INVALID,
                    List.of("call failed: " + e.getMessage()), Map.of());
        }
    }

    private static GoneDecision.Result withCheck(GoneDecision.Result result, Check check) {
        List<Check> checks = new ArrayList<>(result.checks());
        checks.add(check);
        return new GoneDecision.Result(Verdict.worst(result.verdict(), check.outcome()), checks);
    }
}
