package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;

import java.util.List;
import java.util.Map;

/**
 * A redundancy detector (NG210-NG212): it judges the {@link RoleLayers} counted from a snapshot, so tests and
 * `nodegate redundancy` can hand it layers directly, and an audit hands it the snapshot.
 */
public abstract class RoleLayersDetector implements Detector {

    private final FindingCode code;

    protected RoleLayersDetector(FindingCode code) {
        this.code = code;
    }

    @Override
    public final FindingCode code() {
        return code;
    }

    @Override
    public final List<Finding> detect(ClusterState state, AuditSettings settings) {
        return detect(RoleLayers.of(state));
    }

    public abstract List<Finding> detect(RoleLayers layers);

    /** A finding of this detector's code and name. */
    protected final Finding finding(Severity severity, List<String> nodes, String message,
                                    Map<String, Object> evidence, String hint) {
        return new Finding(code, severity, nodes, message, evidence, hint);
    }
}
