package io.nodegate.detect.fleet;

import java.util.List;

/** The detectors `nodegate fleet` runs, in report order. */
public final class FleetDetectors {

    private FleetDetectors() {
    }

    public static List<FleetDetector> all() {
        return List.of(new HostInTwoClustersDetector(), new RemovedHostReturnedDetector());
    }
}
