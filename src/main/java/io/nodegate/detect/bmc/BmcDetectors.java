package io.nodegate.detect.bmc;

import io.nodegate.detect.Detector;
import io.nodegate.detect.FindingCode;

import java.util.List;
import java.util.Set;

/**
 * NG304 and NG305: they judge what the hosts' BMCs said, so they run only when BMCs were asked (--bmc). A run without
 * them leaves them out, rather than counting them as clean checks (a JUnit or PolicyReport "pass" for something never
 * looked at).
 */
public final class BmcDetectors {

    private BmcDetectors() {
    }

    public static List<Detector> all() {
        return List.of(new BmcRunningButSilentDetector(), new BmcPoweredOffButReadyDetector());
    }

    /** {@code detectors} without the BMC ones: what runs when no BMC was given. */
    public static List<Detector> without(List<Detector> detectors) {
        Set<FindingCode> bmc = Set.of(BmcRunningButSilentDetector.CODE, BmcPoweredOffButReadyDetector.CODE);
        return detectors.stream().filter(d -> !bmc.contains(d.code())).toList();
    }
}
