package io.nodegate.detect.fleet;

import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingDetector;

import java.util.List;

/**
 * Like {@link io.nodegate.detect.Detector}, over several clusters at once. From one cluster's API, a host that was
 * powered off and a host that restarted against another cluster look the same (Ready=Unknown, Lease frozen); only a
 * view across clusters tells them apart.
 */
public interface FleetDetector extends FindingDetector {

    List<Finding> detect(Fleet fleet);
}
