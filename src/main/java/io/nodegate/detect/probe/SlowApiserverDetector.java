package io.nodegate.detect.probe;

import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.FindingDetector;
import io.nodegate.detect.Severity;
import io.nodegate.model.probe.EndpointResult;
import io.nodegate.model.probe.Latencies;
import io.nodegate.model.probe.ProbeSettings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NG213 slow-apiserver: an apiserver whose Lease renewal p99 is beyond a fraction of the leader-election renew
 * deadline. Clients are spread over all apiservers, so one slow apiserver is enough for a leader to miss its
 * renew deadline now and then and restart with "leader election lost" (seed 003: p99 2.21 s on one apiserver,
 * 0.025 s and 0.084 s on the others). A pure function of the probe results.
 */
public final class SlowApiserverDetector implements FindingDetector {

    public static final FindingCode CODE = FindingCode.NG213;

    @Override
    public FindingCode code() {
        return CODE;
    }

    public List<Finding> detect(List<EndpointResult> results, ProbeSettings settings) {
        Duration threshold = settings.threshold();
        List<Finding> findings = new ArrayList<>();
        for (EndpointResult r : results) {
            Latencies l = r.latencies();
            if (l == null || l.p99().compareTo(threshold) <= 0) {
                continue;
            }
            Map<String, Object> evidence = new LinkedHashMap<>();
            evidence.put("endpoint", r.target().hostPort());
            evidence.put("renewals", l.count());
            evidence.put("p50Seconds", Latencies.seconds(l.p50()));
            evidence.put("p99Seconds", Latencies.seconds(l.p99()));
            evidence.put("maxSeconds", Latencies.seconds(l.max()));
            evidence.put("thresholdSeconds", Latencies.seconds(threshold));
            evidence.put("renewDeadlineSeconds", Latencies.seconds(settings.renewDeadline()));
            evidence.put("thresholdFraction", settings.thresholdFraction());
            evidence.put("othersP99Seconds", othersP99(results, r));
            findings.add(new Finding(CODE, Severity.WARNING, List.of(r.target().hostPort()),
                    "apiserver " + r.target().hostPort() + " renewed a Lease with p99 " + Latencies.ms(l.p99())
                            + " (p50 " + Latencies.ms(l.p50()) + ", max " + Latencies.ms(l.max()) + ", "
                            + l.count() + " PUTs), beyond " + Latencies.ms(threshold) + " = "
                            + settings.thresholdFraction() + " × renew deadline "
                            + Latencies.ms(settings.renewDeadline())
                            + ". Leaders whose renewals land here can miss their deadline and restart with "
                            + "\"leader election lost\".",
                    evidence,
                    "Find out why this apiserver is slow (CPU, etcd latency from that node, admission webhooks); "
                            + "compare with the others' p99. If the host cannot keep up, keep it as an etcd voter "
                            + "but stop its apiserver (k3s/RKE2: disable-apiserver), after checking that the "
                            + "remaining apiservers still number at least two (nodegate redundancy)."));
        }
        return findings;
    }

    private static Map<String, Double> othersP99(List<EndpointResult> results, EndpointResult self) {
        Map<String, Double> others = new LinkedHashMap<>();
        for (EndpointResult o : results) {
            if (o != self && o.latencies() != null) {
                others.put(o.target().hostPort(), Latencies.seconds(o.latencies().p99()));
            }
        }
        return others;
    }
}
