package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingDetector;

import java.util.List;

/**
 * Like {@link io.nodegate.detect.Detector}, but compares several snapshots of what should be one cluster.
 * A single snapshot cannot show split brain: the minority side only looks NotReady from the majority side.
 */
public interface MultiViewDetector extends FindingDetector {

    List<Finding> detect(List<NamedView> views, AuditSettings settings);
}
