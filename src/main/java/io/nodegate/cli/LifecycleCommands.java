package io.nodegate.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.lifecycle.gate.Check;
import io.nodegate.lifecycle.gate.Verdict;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.CollectionException;

import java.io.PrintWriter;
import java.util.List;
import java.util.stream.Collectors;

/** Shared plumbing for baseline/gate/remove/verify-gone/readmit. */
final class LifecycleCommands {
    private LifecycleCommands() {
    }

    static io.nodegate.source.live.KubeConnection connect(Environment env, LiveOptions source) {
        return env.connect().apply(source);
    }

    /** One line per check (outcome, title), then its reasons and all its evidence. */
    static void printChecks(PrintWriter w, List<Check> checks) {
        for (Check c : checks) {
            w.printf("  %-8s %s%n", outcome(c), c.title());
            c.reasons().forEach(r -> w.printf("      - %s%n", r));
            c.evidence().forEach((k, v) -> w.printf("        %s: %s%n", k, v));
        }
    }

    /** A check's outcome as printed: PASS, HOLD, FAIL, INVALID, or "not checked" (its input was not given). */
    static String outcome(Check c) {
        return c.outcome() == Verdict.NOT_CHECKED ? "not checked" : c.outcome().name();
    }

    /**
     * The first line of a run: "gate gpu-a11: PASS", followed by the checks that were not run, so that a PASS never
     * reads as covering them: "gate gpu-a11: PASS (not checked: host, fleet)".
     */
    static String verdictLine(String run, Verdict verdict, List<Check> checks) {
        List<String> notChecked = Check.notCheckedIds(checks);
        return run + ": " + verdict + (notChecked.isEmpty() ? "" : " (not checked: " + String.join(", ", notChecked)
                + ")");
    }

    /**
     * etcd answers for the lifecycle's member comparisons. Unlike `nodegate etcd`, where a silent endpoint is a
     * finding, here it is missing evidence: one endpoint that did not answer makes the whole run invalid.
     */
    static List<EtcdEndpointReport> etcdEvidence(EtcdOptions etcd) {
        if (!etcd.live()) {
            return List.of();
        }
        List<EtcdEndpointReport> reports = etcd.read();
        List<EtcdEndpointReport> failed = reports.stream().filter(r -> !r.ok()).toList();
        if (!failed.isEmpty()) {
            throw new CollectionException("etcd endpoint(s) did not answer: " + failed.stream()
                    .map(r -> r.endpoint() + " (" + r.error() + ")").collect(Collectors.joining(", ")));
        }
        return reports;
    }
}
