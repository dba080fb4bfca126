package io.nodegate.cli;

import io.nodegate.lifecycle.baseline.Baseline;
import picocli.CommandLine.Mixin;

import java.nio.file.Path;

/**
 * What every lifecycle step after `baseline save` starts with (gate, remove, verify-gone, readmit): the cluster
 * (kubectl's --kubeconfig, --context, --request-timeout), the baseline it compares against and where its evidence
 * goes (--baseline, --evidence-dir). The prelude reads the baseline once, connects, and refuses a baseline of
 * another cluster, an unsealed one and one from the future before the step reads anything else
 * ({@link BaselineFileOptions#connect}).
 */
public final class LifecyclePrelude {

    @Mixin
    LiveOptions live = new LiveOptions();

    @Mixin
    BaselineFileOptions baselineFile = new BaselineFileOptions();

    private Baseline baseline;

    /** The baseline named by --baseline, read and checked once (an unreadable file is an input error, exit 2). */
    Baseline baseline() {
        if (baseline == null) {
            baseline = baselineFile.read();
        }
        return baseline;
    }

    /** The --baseline file, as the evidence records name it. */
    Path baselineFile() {
        return baselineFile.file;
    }

    /** The cluster these options name, for the reads a step makes besides its session (fleet, machines). */
    LiveOptions live() {
        return live;
    }

    /** Connects to the cluster and opens the evidence store, after the checks of {@link BaselineFileOptions#connect}. */
    BaselineFileOptions.Session connect(Environment env) {
        return baselineFile.connect(env, live, baseline());
    }
}
