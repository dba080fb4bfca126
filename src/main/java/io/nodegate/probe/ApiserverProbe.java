package io.nodegate.probe;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.probe.LeaderElectionLostDetector;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.model.ClusterState;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.RawSnapshot;
import io.nodegate.source.kube.StateAssembler;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.model.probe.ApiserverTarget;
import io.nodegate.model.probe.EndpointResult;
import io.nodegate.model.probe.ProbeSettings;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * `nodegate probe apiservers` as a service: finds every kube-apiserver behind default/kubernetes, times Lease
 * renewals against each ({@link LeaseProbe}) and reads the pods for "leader election lost" restarts. The live
 * source and the clock are passed in, so the command does no I/O of its own.
 */
public final class ApiserverProbe {

    private final LiveSource live;
    private final Clock clock;

    public ApiserverProbe(LiveSource live, Clock clock) {
        this.live = live;
        this.clock = clock;
    }

    public ProbeReport run(ProbeSettings settings) {
        Config base = live.client().getConfiguration();
        if (base.isTrustCerts() || base.isDisableHostnameVerification()) {
            throw new InputException("the kubeconfig (" + live.connection().describe() + ") skips TLS "
                    + "verification (insecure-skip-tls-verify); probe apiservers verifies each apiserver's "
                    + "certificate against the kubeconfig's CA and does not run unverified: set "
                    + "certificate-authority(-data) in the kubeconfig");
        }
        List<String> notes = new ArrayList<>();
        List<EndpointSlice> slices = live.api().list(Kinds.API_ENDPOINT_SLICES, Function.identity());
        List<ApiserverTarget> targets = ApiserverTargets.fromSlices(slices);
        if (targets.isEmpty()) {
            throw new CollectionException("the default/kubernetes EndpointSlice(s) at " + live.connection()
                    .server() + " list no ready apiserver address with a port: nothing to probe");
        }
        ClusterState pods = StateAssembler.assemble(new RawSnapshot(clock.instant(),
                "live: " + live.connection().describe(), live.connection().context(),
                live.connection().server(), null, java.util.Map.of(Kinds.NODES, List.of(),
                Kinds.NODE_LEASES, List.of(), Kinds.KUBE_SYSTEM_SECRETS, List.of(),
                Kinds.API_ENDPOINT_SLICES, slices, Kinds.DAEMONSETS, List.of(), Kinds.KUBE_SYSTEM_LEASES,
                List.of(), Kinds.PODS, live.allPods()), List.of()));
        if ("http".equals(LeaseProbe.scheme(base))) {
            notes.add("the kubeconfig's server is plain http, so the apiservers were probed over http "
                    + "(no TLS to verify)");
        }
        notes.add("renewals are sent back to back, not every RetryPeriod as a leader does; latency includes "
                + "the round trip from this machine to each apiserver");
        List<EndpointResult> results = new LeaseProbe(base, live.client(), settings).probeAll(targets);
        return ProbeReport.of(pods.source(), settings, results,
                Detectors.one(LeaderElectionLostDetector.class).detect(pods, AuditSettings.DEFAULTS), notes);
    }
}
