package io.nodegate.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.lifecycle.ApiReader;
import io.nodegate.lifecycle.LifecycleSupport;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The baseline a lifecycle step compares against, and where that step's evidence goes. */
public final class BaselineFileOptions {

    @Option(names = "--baseline", required = true, paramLabel = "FILE",
            description = "Baseline written by 'nodegate baseline save'.")
    Path file;

    @Option(names = "--evidence-dir", paramLabel = "DIR",
            description = "Evidence directory (default: the one the baseline was saved in).")
    Path evidenceDir;

    Baseline read() {
        return LifecycleSupport.readBaseline(file);
    }

    /** What a lifecycle step talks to once connected: the API and the evidence store for that cluster. */
    record Session(ApiReader api, EvidenceStore store) {
        KubernetesClient client() {
            return api.client();
        }
    }

    /** Connects and opens the evidence store, refusing a baseline saved from another cluster. */
    Session connect(Environment env, LiveOptions source, Baseline baseline) {
        ApiReader api = new ApiReader(LifecycleCommands.connect(env, source));
        LifecycleSupport.checkSameCluster(baseline, api.server());
        return new Session(api, LifecycleSupport.store(evidenceDir, baseline, api.server()));
    }
}
