package io.nodegate.detect.controlplane;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdIds;
import io.nodegate.model.EtcdMember;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * NG203: a registered member that did not answer. Either its client URL was queried and failed (the error is
 * the evidence), or no queried endpoint answered as that member ID (it was not queried, or its URL is now
 * served by another etcd). A failed endpoint that belongs to no listed member is reported too: an error is
 * never dropped.
 */
public final class EtcdMemberUnreachable implements Detector {

    @Override
    public FindingCode code() {
        return FindingCode.NG203;
    }

    @Override
    public List<Finding> detect(ClusterState state, AuditSettings settings) {
        List<Finding> out = new ArrayList<>();
        Set<String> explainedEndpoints = new HashSet<>();
        for (EtcdView.Side side : EtcdView.sides(state.etcd())) {
            Set<Long> answered = side.answeredIds();
            for (EtcdMember m : side.allListedMembers()) {
                if (answered.contains(m.id())) {
                    continue;
                }
                Map<String, Object> evidence = new LinkedHashMap<>();
                evidence.put("clusterId", EtcdIds.hex(side.clusterId()));
                evidence.put("member", EtcdView.label(m));
                evidence.put("memberId", EtcdIds.hex(m.id()));
                evidence.put("clientUrls", m.clientUrls());
                evidence.put("learner", m.learner());
                String why;
                Optional<EtcdEndpointReport> queried = queriedAt(state.etcd(), m);
                if (queried.isPresent() && !queried.get().ok()) {
                    EtcdEndpointReport r = queried.get();
                    explainedEndpoints.add(r.endpoint());
                    why = "its client URL " + r.endpoint() + " does not answer: " + r.error();
                    evidence.put("reason", "endpoint-error");
                    evidence.put("endpoint", r.endpoint());
                    evidence.put("error", r.error());
                } else if (queried.isPresent()) {
                    EtcdEndpointReport r = queried.get();
                    String as = EtcdView.answeringMemberId(r).map(EtcdIds::hex).orElse("an unknown member");
                    why = "its client URL " + r.endpoint() + " answers as another member, " + as + " of cluster "
                            + EtcdIds.hex(r.clusterId());
                    evidence.put("reason", "url-answers-as-other-member");
                    evidence.put("endpoint", r.endpoint());
                    evidence.put("answeredAs", as);
                } else {
                    why = "it is registered, but no queried endpoint answered as member ID " + EtcdIds.hex(m.id())
                            + (m.clientUrls().isEmpty() ? " (it lists no client URL: never started?)"
                            : " (its client URLs " + String.join(", ", m.clientUrls()) + " were not queried)");
                    evidence.put("reason", "not-answered-by-any-endpoint");
                }
                out.add(new Finding(code(), Severity.WARNING, List.of(EtcdView.nodeNameOf(m)),
                        "etcd member " + EtcdView.label(m) + (m.learner() ? " [learner]" : "") + " of cluster "
                                + EtcdIds.hex(side.clusterId()) + ": " + why + ".",
                        evidence, "Check the etcd/k3s/RKE2 server on that host (systemctl status, journal), or pass "
                        + "its client URL with --etcd-endpoint; a member gone for good must be removed "
                        + "(etcdctl member remove " + EtcdIds.hex(m.id()) + ") so quorum is counted right.").withDiscriminator(EtcdView.label(m)));
            }
        }
        for (EtcdEndpointReport r : state.etcd()) {
            if (!r.ok() && !explainedEndpoints.contains(r.endpoint())) {
                Map<String, Object> evidence = new LinkedHashMap<>();
                evidence.put("reason", "endpoint-error");
                evidence.put("endpoint", r.endpoint());
                evidence.put("error", r.error());
                out.add(new Finding(code(), Severity.WARNING, List.of(),
                        "etcd endpoint " + r.endpoint() + " does not answer: " + r.error()
                                + " (it is not the client URL of any member the answering endpoints list).",
                        evidence, "Check the URL, the certificates and the server behind it; an endpoint that "
                        + "cannot be read leaves its side of a possible split brain unseen.").withDiscriminator(r.endpoint()));
            }
        }
        return out;
    }

    /** The report of an endpoint whose host:port is one of the member's client URLs. */
    private static Optional<EtcdEndpointReport> queriedAt(List<EtcdEndpointReport> reports, EtcdMember m) {
        Set<String> urls = new HashSet<>();
        m.clientUrls().forEach(u -> urls.add(EtcdView.hostPort(u)));
        return reports.stream().filter(r -> urls.contains(EtcdView.hostPort(r.endpoint())))
                .min((a, b) -> Boolean.compare(a.ok(), b.ok()));
    }
}
