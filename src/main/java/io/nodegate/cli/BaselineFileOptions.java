package io.nodegate.cli;

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

    EvidenceStore store(Baseline baseline, String server) {
        return LifecycleSupport.store(evidenceDir, baseline, server);
    }
}
