package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.InputException;
import io.nodegate.render.CollectOutput;
import io.nodegate.source.kube.RawSnapshot;
import io.nodegate.source.dump.CollectionWriter;
import io.nodegate.source.kube.LiveSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import io.nodegate.handover.NodeHandover;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.kube.ApiCalls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** Saves what the live cluster says as kubectl-style JSON, so audits can run offline and be compared later. */
@Command(name = "collect",
        mixinStandardHelpOptions = true,
        description = {
                "Save what the live cluster says, for offline audit and as evidence.",
                "",
                "Reads Nodes, kube-node-lease Leases, node-password Secret metadata (never data), CSINodes, the "
                        + "default/kubernetes EndpointSlices, DaemonSets, cattle-system Jobs and kube-system Leases "
                        + "with paginated LIST calls, and writes one kubectl-style List JSON file per kind plus "
                        + "nodehandovers.json (the NodeHandovers, when they can be read) and "
                        + "collected.json (time, context, server, version, which optional APIs are absent; no "
                        + "credentials).",
                "",
                "The directory appears complete or not at all: any failed call writes nothing (exit 3). "
                        + "NodeHandovers that cannot be read are named in a note and left out."},
        footer = {"",
                "Examples:",
                "  nodegate collect --dir /tmp/prod-2026-10-19",
                "  nodegate collect --context prod-east --dir evidence/before --with-pods",
                "  nodegate audit -f /tmp/prod-2026-10-19    # offline; ages against collectedAt"})
public final class CollectCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    LiveOptions source = new LiveOptions();

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Directory to create (must not exist, or be empty).")
    Path dir;

    /**
     * The old name of --dir. -o is the output format, as everywhere else (kubectl's habit), so collect's --output-dir
     * is deprecated: it keeps working for one release, with a note on stderr, and is hidden from help. -o DIR, its
     * short form, also still works for this release: -o takes a value that is no output format as the directory
     * ({@link #output}).
     */
    @Option(names = "--output-dir", paramLabel = "DIR", hidden = true)
    Path deprecatedOutputDir;

    /** table, wide, json or yaml: what was written. */
    @Mixin
    OutputOptions output = OutputOptions.of(CollectOutput.class).orElse(value -> {
        deprecatedOutputDir = Path.of(value);
        return true;
    });

    @Option(names = "--with-pods",
            description = "Also save all pods (pods.json); needed offline by checks that count pods per node.")
    boolean withPods;

    @Override
    public Integer call() {
        Path outputDir = dir;
        if (deprecatedOutputDir != null) {
            if (dir != null) {
                throw new InputException("give the directory once: --dir (-o DIR and --output-dir are its deprecated "
                        + "old names)");
            }
            outputDir = deprecatedOutputDir;
            spec.commandLine().getErr().println("nodegate: collect -o DIR and --output-dir DIR are deprecated and "
                    + "will be removed in the next release: use --dir " + outputDir + " (-o is the output format, "
                    + "table, wide, json or yaml, as in every other command)");
        }
        if (outputDir == null) {
            throw new InputException("collect needs --dir DIR: the directory to write the snapshot to");
        }
        RawSnapshot raw;
        List<Map<String, Object>> handovers;
        List<String> notes = new ArrayList<>();
        try (LiveSource live = source.liveSource()) {
            raw = live.read(withPods);
            handovers = handovers(live, notes);
        }
        notes.addAll(0, raw.notes());
        CollectionWriter.Written written = CollectionWriter.write(raw, outputDir, handovers);
        output.print(spec.commandLine().getOut(), new CollectOutput(raw.source().replaceFirst("^live: ", ""),
                raw.readsStarted(), written.counts(), notes, written.directory().toString()));
        return ExitCode.OK;
    }

    /**
     * The NodeHandovers as the server sent them, so `audit -f` judges NG171 (a cordon an open hand-over explains) as
     * the live audit does. Only the API's NotFound for the collection (the CRD is not installed) is "none"; any
     * other failure saves nothing and says so (the offline audit then cannot rule a hand-over out). A failure here
     * does not fail the collection: the hand-overs are not one of the kinds it exists for.
     */
    private static List<Map<String, Object>> handovers(LiveSource live, List<String> notes) {
        try {
            return live.api().listPlain("LIST NodeHandovers", NodeHandover.PATH, NodeHandover.KIND, null, null,
                    KubeJson.EVIDENCE, m -> m);
        } catch (ApiCalls.NotFound e) {
            notes.add("NodeHandovers are not served (the CRD is not installed): none is open, saved as an empty "
                    + CollectionWriter.HANDOVERS);
            return List.of();
        } catch (RuntimeException e) {
            notes.add("NodeHandovers could not be read (" + e.getMessage() + "): not saved, so an audit of this "
                    + "directory cannot rule an open hand-over out (NG171 at info)");
            return null;
        }
    }
}
