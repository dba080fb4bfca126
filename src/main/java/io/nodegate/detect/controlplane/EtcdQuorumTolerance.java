package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * NG202: how many more voter failures each etcd cluster survives. Quorum is a majority of the REGISTERED
 * voters (learners do not vote), so a member that is down still counts in the denominator: 3 registered with
 * 1 down tolerate nothing more (seed 001, step 3; seed 003: "3 members tolerate 1, 2 tolerate none").
 */
public final class EtcdQuorumTolerance implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG202;
    }

    /** floor(n/2)+1 */
    public static int quorum(int voters) {
        return voters / 2 + 1;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> out = new ArrayList<>();
        for (EtcdView.Side side : EtcdView.sides(state.etcd())) {
            List<EtcdMember> voters = side.voters();
            if (voters.isEmpty()) {
                continue;
            }
            Set<Long> answered = side.answeredIds();
            List<EtcdMember> down = voters.stream().filter(m -> !answered.contains(m.id())).toList();
            List<EtcdMember> learners = side.registered().stream().filter(EtcdMember::learner).toList();
            int n = voters.size();
            int quorum = quorum(n);
            int reachable = n - down.size();
            int tolerance = reachable - quorum;

            Severity severity;
            String verdict;
            if (tolerance < 0) {
                severity = Severity.CRITICAL;
                verdict = "quorum LOST: " + reachable + " of " + n + " voters answer, " + quorum + " needed";
            } else if (tolerance == 0 && !down.isEmpty()) {
                severity = Severity.CRITICAL;
                verdict = "tolerates NO further failure: " + reachable + " of " + n + " voters answer, quorum "
                        + quorum + "; one more failure stops writes";
            } else if (n <= 2) {
                severity = Severity.WARNING;
                verdict = n + " voter(s), quorum " + quorum + ": tolerates " + tolerance + " failure(s); "
                        + (n == 1 ? "a single member is no redundancy" : "2 members are less available than 1");
            } else if (n % 2 == 0) {
                severity = Severity.WARNING;
                verdict = n + " voters (even), quorum " + quorum + ": tolerates " + tolerance + " failure(s), no "
                        + "more than " + (n - 1) + " voters would, with a larger quorum to reach";
            } else {
                severity = Severity.INFO;
                verdict = n + " voters, quorum " + quorum + ", " + reachable + " answer: tolerates " + tolerance
                        + " failure(s)";
            }
            String downText = down.isEmpty() ? "" : "; not answering: " + String.join(", ", EtcdView.labels(down));
            String learnerText = learners.isEmpty() ? "" : "; learners (not counted): "
                    + String.join(", ", EtcdView.labels(learners));

            Map<String, Object> evidence = new LinkedHashMap<>();
            evidence.put("clusterId", EtcdIds.hex(side.clusterId()));
            evidence.put("registeredVoters", n);
            evidence.put("quorum", quorum);
            evidence.put("answeringVoters", reachable);
            evidence.put("toleratedFailures", tolerance);
            evidence.put("notAnswering", EtcdView.labels(down));
            evidence.put("learners", EtcdView.labels(learners));
            evidence.put("endpoints", side.endpointNames());

            String hint = switch (severity) {
                case CRITICAL -> "Bring the missing member(s) back (or replace them: etcdctl member remove, then "
                        + "rejoin a clean server) before any other control-plane work; a voter that is only not "
                        + "queried counts as down here: pass every server's client URL with --etcd-endpoint.";
                case WARNING -> "Run an odd number of etcd voters (3 or 5) on separate hosts.";
                default -> null;
            };
            List<String> nodes = down.stream().map(EtcdView::nodeNameOf).toList();
            out.add(new Finding(code(), severity, nodes, "etcd cluster " + EtcdIds.hex(side.clusterId())
                    + ": " + verdict + downText + learnerText + ".", evidence, hint).withDiscriminator(EtcdIds.hex(side.clusterId())));
        }
        return out;
    }
}
