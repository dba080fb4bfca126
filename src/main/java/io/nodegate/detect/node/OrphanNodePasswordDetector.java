package io.nodegate.detect.node;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.SecretMeta;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * NG140: a k3s/RKE2 node-password Secret whose Node does not exist. Severity info: a Secret outlives its Node
 * for up to minutes by design (GC, or k3s' orphan sync that waits 10 min), nothing schedules on it, and its only
 * effect is that a host with a new password is rejected under that name, loudly, on the host. A warning would make
 * every normal node delete fail the audit for those minutes.
 */
public final class OrphanNodePasswordDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG140;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        // k3s/RKE2 name the Secret after the lower-cased node name, so compare lower-cased.
        Set<String> nodeNames = state.nodes().stream().map(NodeInfo::name)
                .map(n -> n.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        List<Finding> findings = new ArrayList<>();
        for (SecretMeta secret : NodeFacts.nodePasswordSecrets(state)) {
            String owner = secret.nodePasswordOwner().orElse(null);
            if (owner == null || nodeNames.contains(owner.toLowerCase(Locale.ROOT))) {
                continue;
            }
            findings.add(new Finding(code(), Severity.INFO, List.of(owner),
                    "node-password Secret " + secret.namespace() + "/" + secret.name() + " has no Node named "
                            + owner + ": a host joining under that name with a different password will be "
                            + "rejected (\"Node password rejected, duplicate hostname ...\").",
                    Evidence.of().put("secret", secret.namespace() + "/" + secret.name())
                            .put("secretType", secret.type() == null || secret.type().isEmpty() ? "(untyped)"
                                    : secret.type())
                            .time("created", secret.created())
                            .put("uid", secret.uid()).build(),
                    "If the Node was deleted minutes ago, wait: GC or the k3s orphan sync removes it. If it stays and "
                            + "the name will be reused by a reinstalled host, back up its metadata and delete it "
                            + "(kubectl -n " + secret.namespace() + " delete secret " + secret.name() + ").").withDiscriminator(secret.namespace() + "/" + secret.name()));
        }
        return findings;
    }
}
