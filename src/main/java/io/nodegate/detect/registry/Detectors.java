package io.nodegate.detect.registry;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.FindingDetector;
import io.nodegate.detect.bmc.BmcPoweredOffButReadyDetector;
import io.nodegate.detect.bmc.BmcRunningButSilentDetector;
import io.nodegate.detect.controlplane.ApiserverLayersBelowEtcdDetector;
import io.nodegate.detect.controlplane.DivergentViewsDetector;
import io.nodegate.detect.controlplane.EtcdMemberListsDisagree;
import io.nodegate.detect.controlplane.EtcdMemberNotControlPlane;
import io.nodegate.detect.controlplane.EtcdMemberUnreachable;
import io.nodegate.detect.controlplane.EtcdNodeMismatch;
import io.nodegate.detect.controlplane.EtcdQuorumTolerance;
import io.nodegate.detect.controlplane.EtcdSplitBrain;
import io.nodegate.detect.controlplane.SingleApiserverDetector;
import io.nodegate.detect.controlplane.SingleLeaderCandidateDetector;
import io.nodegate.detect.fleet.HostInTwoClustersDetector;
import io.nodegate.detect.fleet.RemovedHostReturnedDetector;
import io.nodegate.detect.node.AbandonedNodeDetector;
import io.nodegate.detect.node.BareNewcomerDetector;
import io.nodegate.detect.node.InventoryDriftDetector;
import io.nodegate.detect.node.InventoryHostMissingDetector;
import io.nodegate.detect.node.NotInInventoryDetector;
import io.nodegate.detect.node.BatchSilenceDetector;
import io.nodegate.detect.node.DuplicateInternalIpDetector;
import io.nodegate.detect.node.FailedPlanJobDetector;
import io.nodegate.detect.node.KubeletAnswersForAnotherClusterDetector;
import io.nodegate.detect.node.KubeletSkewDetector;
import io.nodegate.detect.node.MissingNodePasswordDetector;
import io.nodegate.detect.node.NodeNotReadyDetector;
import io.nodegate.detect.node.NodeUnknownDetector;
import io.nodegate.detect.node.OrphanNodePasswordDetector;
import io.nodegate.detect.node.SameHostTwoNamesDetector;
import io.nodegate.detect.node.UnexplainedCordonDetector;
import io.nodegate.detect.probe.LeaderElectionLostDetector;
import io.nodegate.detect.probe.SlowApiserverDetector;
import io.nodegate.detect.rejoin.RejoinRisk;
import io.nodegate.model.ClusterState;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static io.nodegate.detect.registry.Scope.AUDIT;
import static io.nodegate.detect.registry.Scope.BMC;
import static io.nodegate.detect.registry.Scope.ETCD;
import static io.nodegate.detect.registry.Scope.FLEET;
import static io.nodegate.detect.registry.Scope.PROBE;
import static io.nodegate.detect.registry.Scope.REDUNDANCY;
import static io.nodegate.detect.registry.Scope.REJOIN;
import static io.nodegate.detect.registry.Scope.VIEWS;
import static io.nodegate.detect.registry.Scope.WATCH;

/**
 * The one table of detectors: one row per {@link FindingCode}, in code order, each tagged with the {@link Scope}s
 * that run it. Every command and the watch take their detectors from here, so adding a finding is its class and its
 * row (plus its {@link FindingCode} row, its docs/findings.md section and its test, which FindingCatalogueTest
 * demands). The order here is the order commands list what they checked.
 */
public final class Detectors {

    /** One detector and where it runs. */
    public record Row(FindingDetector detector, Set<Scope> scopes) {

        public Row {
            scopes = Set.copyOf(scopes);
        }

        public FindingCode code() {
            return detector.code();
        }
    }

    private static final List<Row> TABLE = List.of(
            row(new NodeUnknownDetector(), AUDIT, WATCH),
            row(new NodeNotReadyDetector(), AUDIT, WATCH),
            row(new BatchSilenceDetector(), AUDIT, WATCH),
            row(new SameHostTwoNamesDetector(), AUDIT, WATCH),
            row(new BareNewcomerDetector(), AUDIT, WATCH),
            row(new NotInInventoryDetector(), AUDIT, WATCH),
            row(new InventoryHostMissingDetector(), AUDIT, WATCH),
            row(new InventoryDriftDetector(), AUDIT, WATCH),
            row(new DuplicateInternalIpDetector(), AUDIT, WATCH),
            row(new KubeletSkewDetector(), AUDIT, WATCH),
            row(new OrphanNodePasswordDetector(), AUDIT, WATCH),
            row(new MissingNodePasswordDetector(), AUDIT, WATCH),
            row(new FailedPlanJobDetector(), AUDIT, WATCH),
            row(new AbandonedNodeDetector(), AUDIT, WATCH),
            row(new UnexplainedCordonDetector(), AUDIT, WATCH),
            row(new EtcdSplitBrain(), ETCD),
            row(new EtcdQuorumTolerance(), ETCD),
            row(new EtcdMemberUnreachable(), ETCD),
            row(new EtcdNodeMismatch(), ETCD),
            row(new EtcdMemberNotControlPlane(), ETCD),
            row(new EtcdMemberListsDisagree(), ETCD),
            row(new DivergentViewsDetector(), VIEWS),
            row(new ApiserverLayersBelowEtcdDetector(), REDUNDANCY),
            row(new SingleApiserverDetector(), REDUNDANCY),
            row(new SingleLeaderCandidateDetector(), REDUNDANCY),
            row(new SlowApiserverDetector(), PROBE),
            row(new LeaderElectionLostDetector(), PROBE),
            row(new HostInTwoClustersDetector(), FLEET),
            // on one cluster too: its Nodes against its own tombstones (fleet: across clusters)
            row(new RemovedHostReturnedDetector(), AUDIT, FLEET, WATCH),
            // over the kubelet ports' answers: probe kubelet, and audit with --probe-kubelets
            row(new KubeletAnswersForAnotherClusterDetector(), PROBE, AUDIT),
            row(new BmcRunningButSilentDetector(), AUDIT, WATCH, BMC),
            row(new BmcPoweredOffButReadyDetector(), AUDIT, WATCH, BMC),
            row(new RejoinRisk(), REJOIN));

    private Detectors() {
    }

    private static Row row(FindingDetector detector, Scope first, Scope... rest) {
        return new Row(detector, EnumSet.of(first, rest));
    }

    /** Every row, in code order. */
    public static List<Row> rows() {
        return TABLE;
    }

    /**
     * The detectors of {@code scope} that read what {@code shape} reads (a snapshot for {@link Detector}, several
     * views, a fleet, probe answers), in table order.
     */
    public static <D extends FindingDetector> List<D> in(Scope scope, Class<D> shape) {
        return TABLE.stream().filter(r -> r.scopes().contains(scope) && shape.isInstance(r.detector()))
                .map(r -> shape.cast(r.detector())).toList();
    }

    /** The registered instance of one detector class. */
    public static <D extends FindingDetector> D one(Class<D> type) {
        return TABLE.stream().map(Row::detector).filter(type::isInstance).map(type::cast).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(type.getName() + " has no row in the registry"));
    }

    /** Every detector `nodegate audit` runs over one snapshot; the watch runs the same ({@link Scope#WATCH}). */
    public static List<Detector> all() {
        return in(AUDIT, Detector.class);
    }

    /**
     * {@code detectors} without the {@link Scope#BMC} ones: what runs when no BMC was given. A run without them
     * leaves them out, rather than counting them as clean checks (a JUnit or PolicyReport "pass" for something
     * never looked at).
     */
    public static List<Detector> withoutBmc(List<Detector> detectors) {
        List<FindingDetector> bmc = in(BMC, FindingDetector.class);
        return detectors.stream().filter(d -> bmc.stream().noneMatch(b -> b.code() == d.code())).toList();
    }

    /** What {@code detectors} find in one snapshot, in {@link Finding#ORDER}: the order every command prints. */
    public static List<Finding> run(List<? extends Detector> detectors, ClusterState state, AuditSettings settings) {
        List<Finding> findings = new ArrayList<>();
        for (Detector detector : detectors) {
            findings.addAll(detector.detect(state, settings));
        }
        findings.sort(Finding.ORDER);
        return findings;
    }
}
