package io.nodegate.cli;

import io.nodegate.lifecycle.baseline.BaselineFile;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.baseline.BaselineSeal;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.CollectionException;
import io.nodegate.ExitCode;
import io.nodegate.NodegateException;
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
        return BaselineFile.read(file);
    }

    /** What a lifecycle step talks to once connected: the API and the evidence store for that cluster. */
    record Session(ApiReader api, EvidenceStore store) {
        KubernetesClient client() {
            return api.client();
        }
    }

    /**
     * Connects and opens the evidence store, refusing a baseline saved from another cluster, one whose sha256 is
     * not sealed in the evidence directory (edited since it was saved), and one whose time is after the API
     * server's clock. The last two make the run INVALID (exit 3): the baseline cannot be trusted as evidence.
     */
    Session connect(Environment env, LiveOptions source, Baseline baseline) {
        ApiReader api = new ApiReader(LifecycleCommands.connect(env, source));
        BaselineFile.checkSameCluster(baseline, api.server());
        EvidenceStore store = BaselineFile.evidenceStore(evidenceDir, baseline, api.server());
        java.util.List<EvidenceStore> stores = new java.util.ArrayList<>(java.util.List.of(store));
        if (baseline.evidenceDir() != null) {
            stores.add(new EvidenceStore(Path.of(baseline.evidenceDir())));
        }
        String unsealed = BaselineSeal.problem(stores, file);
        if (unsealed != null) {
            throw new NodegateException(ExitCode.COLLECTION, "INVALID: --baseline " + file + " " + unsealed);
        }
        java.time.Instant serverNow;
        try {
            serverNow = api.serverTime();
        } catch (CollectionException e) {
            throw new NodegateException(ExitCode.COLLECTION, "INVALID: cannot read the API server's clock to check"
                    + " the baseline's time: " + e.getMessage(), e);
        }
        if (baseline.baselineTs().isAfter(serverNow)) {
            throw new NodegateException(ExitCode.COLLECTION, "INVALID: --baseline " + file + " has baselineTs "
                    + baseline.baselineTs() + ", after the API server's current time " + serverNow + ": a baseline"
                    + " from the future would hide every Node created since. Save a new baseline");
        }
        return new Session(api, store);
    }
}
