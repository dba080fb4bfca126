package io.nodegate.detect;

import io.nodegate.model.ClusterState;

import java.util.List;

/**
 * A pure function from one cluster snapshot to findings of one code. Detectors never call the API:
 * everything they need is in the {@link ClusterState}, which is what makes live and offline audits equal.
 */
public interface Detector {

    /** The stable finding code, e.g. "NG101". */
    String code();

    /** The short kebab-case name that goes with the code, e.g. "node-unknown". */
    String name();

    List<Finding> detect(ClusterState state, AuditSettings settings);
}
