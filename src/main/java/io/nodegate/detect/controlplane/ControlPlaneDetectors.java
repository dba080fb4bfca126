package io.nodegate.detect.controlplane;

import io.nodegate.detect.Detector;

import java.util.List;

/** The control-plane detector registries: `nodegate redundancy` runs {@link #redundancy()}, `nodegate views` {@link #views()}. */
public final class ControlPlaneDetectors {

    private ControlPlaneDetectors() {
    }

    /** NG210, NG211, NG212: redundancy per role, from one snapshot. */
    public static List<Detector> redundancy() {
        return List.of(new ApiserverLayersBelowEtcdDetector(), new SingleApiserverDetector(),
                new SingleLeaderCandidateDetector());
    }

    /** NG207: needs several views of one cluster, so it cannot run in a single-snapshot audit. */
    public static List<MultiViewDetector> views() {
        return List.of(new DivergentViewsDetector());
    }
}
