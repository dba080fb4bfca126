package io.nodegate.lifecycle.verify;

import io.nodegate.lifecycle.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.LeaseInfo;
import io.nodegate.model.NodeInfo;
import io.nodegate.CollectionException;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Gathers verify-gone's evidence, decides, and records the run. */
public final class GoneVerifier {

    private final ApiReader api;
    private final EvidenceStore store;
    private final Clock clock;

    public GoneVerifier(ApiReader api, EvidenceStore store, Clock clock) {
        this.api = api;
        this.store = store;
        this.clock = clock;
    }

    public record Record(String kind, Instant verifiedAt, String baselineFile, Instant baselineTs, String namePattern,
                         List<String> ips, GoneDecision.Result result) {
        public static final String KIND = "nodegate.io/verify-gone-record";
    }

    public record Run(GoneDecision.Result result, Path recordFile) {
    }

    public Run verify(Baseline baseline, Path baselineFile, Pattern namePattern, List<String> ips,
                      List<EtcdEndpointReport> etcd) {
        store.ensureWritable();
        GoneDecision.Evidence ev = collect(baseline, etcd);
        GoneDecision.Result result = GoneDecision.decide(baseline, ev, namePattern, ips);
        Record rec = new Record(Record.KIND, ev.observedAt(), baselineFile == null ? null : baselineFile.toAbsolutePath().toString(),
                baseline.baselineTs(), namePattern == null ? null : namePattern.pattern(), ips, result);
        Path file = store.writeJson("verify-gone-" + EvidenceStore.stamp(ev.observedAt()) + ".json", rec);
        return new Run(result, file);
    }

    private GoneDecision.Evidence collect(Baseline baseline, List<EtcdEndpointReport> etcd) {
        try {
            List<NodeInfo> nodes = api.nodes();
            var secrets = api.nodePasswordSecrets();
            Map<String, LeaseInfo> leases = new LinkedHashMap<>();
            for (Baseline.Target t : baseline.targets()) {
                if (nodes.stream().anyMatch(n -> n.name().equals(t.name()))) {
                    api.lease(t.name()).ifPresent(l -> leases.put(t.name(), l));
                }
            }
            return new GoneDecision.Evidence(clock.instant(), nodes, secrets, leases, etcd, null);
        } catch (CollectionException e) {
            return new GoneDecision.Evidence(clock.instant(), null, null, null, etcd, e.getMessage());
        }
    }
}
