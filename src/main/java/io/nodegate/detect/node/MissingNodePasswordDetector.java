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
 * NG141: in a cluster that keeps node-password Secrets, a Node without one. The supervisor writes the Secret
 * before the Node registers, so a Node without it was deleted-and-kept by hand, joined some other way, or lost the
 * Secret (someone deleted it for a readmission that never happened). The removal gate's positive control also
 * relies on finding this Secret.
 */
public final class MissingNodePasswordDetector implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG141;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<SecretMeta> secrets = NodeFacts.nodePasswordSecrets(state);
        if (secrets.isEmpty()) {
            return List.of();
        }
        Set<String> owners = secrets.stream()
                .map(SecretMeta::nodePasswordOwner).flatMap(java.util.Optional::stream)
                .map(o -> o.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        List<Finding> findings = new ArrayList<>();
        for (NodeInfo node : state.nodes()) {
            String expected = node.name().toLowerCase(Locale.ROOT);
            if (owners.contains(expected)) {
                continue;
            }
            findings.add(new Finding(code(), Severity.WARNING, List.of(node.name()),
                    "No node-password Secret for this Node, although the cluster keeps " + owners.size()
                            + " of them: expected " + SecretMeta.nodePasswordName(node.name(), "rke2") + " or "
                            + SecretMeta.nodePasswordName(node.name(), "k3s") + ".",
                    Evidence.of().put("expectedSecretNames", List.of(SecretMeta.nodePasswordName(node.name(), "rke2"),
                                    SecretMeta.nodePasswordName(node.name(), "k3s")))
                            .put("nodePasswordSecrets", owners.size()).build(),
                    "Find out who deleted it (audit log). The next agent start re-creates it from the host's "
                            + "/etc/rancher/node/password; until then, any host can claim this name."));
        }
        return findings;
    }
}
