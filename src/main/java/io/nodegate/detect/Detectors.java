package io.nodegate.detect;

import io.nodegate.detect.node.AbandonedNodeDetector;
import io.nodegate.detect.node.BareNewcomerDetector;
import io.nodegate.detect.node.BatchSilenceDetector;
import io.nodegate.detect.node.DuplicateInternalIpDetector;
import io.nodegate.detect.node.FailedPlanJobDetector;
import io.nodegate.detect.node.KubeletSkewDetector;
import io.nodegate.detect.node.MissingNodePasswordDetector;
import io.nodegate.detect.node.NodeNotReadyDetector;
import io.nodegate.detect.node.NodeUnknownDetector;
import io.nodegate.detect.node.OrphanNodePasswordDetector;
import io.nodegate.detect.node.SameHostTwoNamesDetector;

import io.nodegate.model.ClusterState;

import java.util.ArrayList;
import java.util.List;

/** The registry of detectors, in code order. Each code appears once and is documented in docs/findings.md. */
public final class Detectors {

    private Detectors() {
    }

    /** NG1xx: what Node objects, their Leases and node-password Secrets say about hosts. */
    public static List<Detector> nodeDetectors() {
        return List.of(
                new NodeUnknownDetector(),
                new NodeNotReadyDetector(),
                new BatchSilenceDetector(),
                new SameHostTwoNamesDetector(),
                new BareNewcomerDetector(),
                new DuplicateInternalIpDetector(),
                new KubeletSkewDetector(),
                new OrphanNodePasswordDetector(),
                new MissingNodePasswordDetector(),
                new FailedPlanJobDetector(),
                new AbandonedNodeDetector());
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

    /** Every detector `nodegate audit` runs (NG1xx). The control-plane codes run in etcd, views and redundancy. */
    public static List<Detector> all() {
        List<Detector> all = new ArrayList<>(nodeDetectors());
        // NG302 also runs on one cluster: its Nodes against its own tombstones (nodegate fleet: across clusters)
        all.add(new io.nodegate.detect.fleet.RemovedHostReturnedDetector());
        // NG304, NG305: what the hosts' BMCs say; commands run them only with --bmc (BmcDetectors.without)
        all.addAll(io.nodegate.detect.bmc.BmcDetectors.all());
        return List.copyOf(all);
    }
}
