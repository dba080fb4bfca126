package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.JobInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NG150: a Failed system-agent-upgrader Job. Rancher 2.15 deploys Plan system-agent-upgrader to imported RKE2/k3s
 * clusters; a Failed Job for a node (often left from the time the host was in another cluster) stops the Plan from
 * re-applying there until the Job is deleted.
 */
public final class FailedPlanJobDetector implements Detector {

    static final String NAMESPACE = "cattle-system";
    static final String PREFIX = "apply-system-agent-upgrader-on-";
    // system-upgrade-controller names Jobs with SafeConcatName("apply", plan, "on", node, "with", hash): names over
    // 63 characters are cut and get a short hash suffix, so "-with-<hash>" may be followed by "-<suffix>".
    static final Pattern UPGRADER_JOB = Pattern.compile("^" + PREFIX + "(.+)-with-([a-z0-9]+)(?:-[a-z0-9]{5})?$");

    @Override
    public FindingCode code() {
        return FindingCode.NG150;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> findings = new ArrayList<>();
        for (JobInfo job : state.cattleJobs().items()) {
            if (!job.failed() || !NAMESPACE.equals(job.namespace())) {
                continue;
            }
            if (!job.name().startsWith(PREFIX)) {
                continue;
            }
            Matcher m = UPGRADER_JOB.matcher(job.name());
            String node = nodeOf(job.name(), m, state);
            if (node == null) {
                continue;
            }
            boolean nodeExists = state.node(node).isPresent();
            findings.add(new Finding(code(), Severity.WARNING, List.of(node),
                    "Job " + NAMESPACE + "/" + job.name() + " Failed"
                            + (job.failedReason() == null ? "" : " (" + job.failedReason() + ")")
                            + ": Plan system-agent-upgrader will not re-apply on " + node + " while it exists"
                            + (nodeExists ? "." : "; no Node of that name exists in this cluster."),
                    Evidence.of().put("job", NAMESPACE + "/" + job.name()).put("planHash", m.matches() ? m.group(2) : null)
                            .put("failedReason", job.failedReason()).time("created", job.created())
                            .put("nodeExists", nodeExists).build(),
                    "Read its logs (kubectl -n " + NAMESPACE + " logs job/" + job.name() + "), then delete it "
                            + "(kubectl -n " + NAMESPACE + " delete job " + job.name() + "): the Plan starts a new Job.").withDiscriminator(job.name()));
        }
        return findings;
    }

    /** The node a Job is for: an existing node whose name the Job name carries, else what the name pattern says. */
    private static String nodeOf(String jobName, Matcher m, ClusterState state) {
        String rest = jobName.substring(PREFIX.length());
        String known = state.nodes().stream().map(n -> n.name())
                .filter(n -> rest.startsWith(n + "-with-"))
                .max(java.util.Comparator.comparingInt(String::length)).orElse(null);
        if (known != null) {
            return known;
        }
        return m.matches() ? m.group(1) : null;
    }
}
