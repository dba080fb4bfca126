package io.nodegate.detect.node;

import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.FindingDetector;
import io.nodegate.detect.Severity;
import io.nodegate.model.Condition;
import io.nodegate.model.KubeletAnswer;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * NG303: the Node is Unknown here, yet its InternalIP answers on the kubelet port with a serving certificate from
 * another cluster's CA (judged by signature in probe/KubeletProbe; a kubelet's own self-signed certificate is not
 * NG303). Power-off and network loss give no answer; an answer signed by someone else means the host runs a kubelet
 * for another cluster. Seed 000: gpu-a07..a09 restarted against cluster B 3 s after their Leases stopped, and
 * cluster A took six days to learn it. Pure: the probe's answers are its input.
 */
public final class KubeletAnswersForAnotherClusterDetector implements FindingDetector {

    public static final FindingCode CODE = FindingCode.NG303;

    @Override
    public FindingCode code() {
        return CODE;
    }

    public List<Finding> detect(List<NodeInfo> nodes, List<KubeletAnswer> answers) {
        Map<String, NodeInfo> byName = new java.util.HashMap<>();
        nodes.forEach(n -> byName.putIfAbsent(n.name(), n));
        List<Finding> out = new ArrayList<>();
        for (KubeletAnswer a : answers) {
            NodeInfo node = byName.get(a.node());
            if (node == null || a.outcome() != KubeletAnswer.Outcome.OTHER_CA || !"Unknown".equals(node.readyStatus())) {
                continue;
            }
            Condition ready = node.condition("Ready");
            Evidence evidence = NodeFacts.readyEvidence(ready)
                    .put("address", a.target())
                    .put("issuer", a.issuer())
                    .put("subject", a.subject())
                    .list("subjectAltNames", a.sans())
                    .put("bootID", node.systemInfo().bootId());
            out.add(new Finding(CODE, Severity.CRITICAL, List.of(node.name()),
                    "Ready=Unknown here, but " + a.target() + " answers the kubelet port with a serving certificate "
                            + "issued by " + a.issuer() + " (SANs " + String.join(", ", a.sans()) + "), which does "
                            + "not chain to this cluster's CA (signatures checked, not names): a kubelet runs on that "
                            + "address for another cluster. The host left; it was not powered off.",
                    evidence.build(),
                    "Do not wait for it to come back and do not count it as shut down. Ask the owner of the CA "
                            + a.issuer() + " (the other cluster) before deleting the Node; if the host should return, "
                            + "follow `nodegate readmit`. Check that the address was not reassigned to another "
                            + "machine (a host report's machine-id settles it)."));
        }
        out.sort(Finding.ORDER);
        return out;
    }
}
