package io.nodegate.detect.controlplane;

import io.nodegate.detect.Detector;

import java.util.List;

/** The etcd detectors (NG201–NG206), in code order. All read only ClusterState.etcd() and, for 204/205, nodes. */
public final class EtcdDetectors {

    private EtcdDetectors() {
    }

    public static List<Detector> all() {
        return List.of(new EtcdSplitBrain(), new EtcdQuorumTolerance(), new EtcdMemberUnreachable(),
                new EtcdNodeMismatch(), new EtcdMemberNotControlPlane(), new EtcdMemberListsDisagree());
    }
}
