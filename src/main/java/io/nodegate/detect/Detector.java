package io.nodegate.detect;

import io.nodegate.model.ClusterState;

import java.util.List;

/**
 * A pure function from one cluster snapshot to findings of one code. Detectors never call the API:
 * everything they need is in the {@link ClusterState}, which is what makes live and offline audits equal.
 */
public interface Detector extends FindingDetector {

    List<Finding> detect(ClusterState state, AuditSettings settings);
}
