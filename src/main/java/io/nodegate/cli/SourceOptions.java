package io.nodegate.cli;

import io.nodegate.model.ClusterState;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.source.InputFiles;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.kube.LiveSource;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where cluster state comes from: a live API server (kubectl's flags and rules) or kubectl/etcdctl dumps
 * given with -f. Shared by every command that reads a cluster.
 */
public final class SourceOptions {

    @Mixin
    LiveOptions live = new LiveOptions();

    @Option(names = {"-f", "--filename"}, paramLabel = "PATH",
            description = "Read kubectl JSON/YAML dumps (file or directory; repeatable; - for stdin, as in "
                    + "'kubectl get nodes -o json | nodegate audit -f -') instead of a live cluster. "
                    + "Also accepts `etcdctl member list -w json` and `etcdctl endpoint status -w json` output.")
    List<Path> files = new ArrayList<>();

    @Option(names = "--now", paramLabel = "TIME",
            description = "Offline only: the time ages are computed against (ISO-8601, e.g. 2026-10-19T06:10:00Z). "
                    + "Default: the time recorded by 'nodegate collect'; for -f - alone (a pipe from kubectl), the "
                    + "moment standard input was read.")
    String now;

    /** Where -f - reads from; System.in unless a test gives another stream. */
    java.io.InputStream stdin = System.in;

    /** The clock that stamps a dump read from standard input; the system clock unless a test gives another. */
    java.time.Clock clock = java.time.Clock.systemUTC();

    @Option(names = "--allow-empty",
            description = "Accept a cluster or an input that holds no Node objects (the cluster really has none). "
                    + "Without it that is an error: an empty, truncated or wrong file, or the wrong context, is not a "
                    + "healthy cluster.")
    boolean allowEmpty;

    public boolean offline() {
        return !files.isEmpty();
    }

    /**
     * Reads the cluster (live or from files) into one snapshot. Pods are read only when asked (live: one
     * paginated LIST over all namespaces; offline: whatever pods the input holds).
     *
     * @throws InputException      bad flags, unreadable kubeconfig, unknown context, malformed dump (exit 2)
     * @throws CollectionException any failed API call (exit 3)
     */
    public ClusterState load(boolean withPods) {
        return load(withPods, true);
    }

    /**
     * @param requireNodes an input or a live cluster without a single Node object is an input error (unless
     *                     --allow-empty): an empty file, a directory of other kinds, a failed redirect or the wrong
     *                     context must never read as a cluster with nothing wrong. Commands that read other evidence
     *                     (etcd) pass false.
     */
    public ClusterState load(boolean withPods, boolean requireNodes) {
        if (offline()) {
            checkOfflineFlags();
            ClusterState state = loadOffline();
            if (requireNodes && !allowEmpty && state.nodes().isEmpty()) {
                throw new InputException("-f " + String.join(", ", files.stream().map(Path::toString).toList())
                        + ": the input holds no Node objects, so there is nothing to judge (an empty or truncated "
                        + "dump, or the wrong files?). Give kubectl's 'get nodes -o json' output or a 'nodegate "
                        + "collect' directory; if the cluster really has no Nodes, pass --allow-empty");
            }
            return state;
        }
        checkLiveFlags();
        try (LiveSource source = LiveSource.openForModel(live.kubeconfig, live.context, live.requestTimeout,
                live.lastAsked)) {
            ClusterState state = source.load(withPods);
            if (requireNodes && !allowEmpty && state.nodes().isEmpty()) {
                // the LIST itself was well formed (a lying one never gets here): the cluster says it has no Nodes
                throw new InputException("the cluster at " + state.server() + (state.context() == null ? ""
                        : " (context " + state.context() + ")") + " lists no Node objects, so there is nothing to "
                        + "judge (the wrong context, or an API server in front of an empty datastore?); if the "
                        + "cluster really has no Nodes, pass --allow-empty");
            }
            return state;
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (var entries = java.nio.file.Files.list(dir)) {
            for (Path p : entries.toList()) {
                java.nio.file.Files.deleteIfExists(p);
            }
            java.nio.file.Files.deleteIfExists(dir);
        } catch (java.io.IOException ignored) {
            // a temporary copy left in the temp directory is harmless; the load's result does not depend on it
        }
    }

    /**
     * The live source itself, for callers that need more than a snapshot (e.g.
     * {@link LiveSource#podsOnNode(String)}). Close it when done; closing closes its client.
     */
    public LiveSource liveSource() {
        if (offline()) {
            throw new InputException("this needs a live cluster; -f reads files only (drop -f, use --context)");
        }
        checkLiveFlags();
        return live.liveSource();
    }

    /** The -f inputs (with "-" read from standard input once) as one snapshot. */
    private ClusterState loadOffline() {
        if (!files.contains(Path.of("-"))) {
            return DumpSource.load(files, now);
        }
        if (files.stream().filter(p -> p.equals(Path.of("-"))).count() > 1) {
            throw new InputException("-f - given twice: standard input can be read once");
        }
        Path dir = null;
        try {
            dir = java.nio.file.Files.createTempDirectory("nodegate-stdin");
            // copied to disk with a cap and a deadline (InputFiles), never held whole in memory
            Path raw = dir.resolve("stdin");
            try (java.io.OutputStream to = java.nio.file.Files.newOutputStream(raw)) {
                InputFiles.copy(stdin, to, "-f - (standard input)", InputFiles.DUMP_STREAM);
            }
            // the end of the pipe: kubectl wrote its answer before nodegate finished reading it
            java.time.Instant readAt = clock.instant();
            String start;
            try (java.io.InputStream head = java.nio.file.Files.newInputStream(raw)) {
                start = new String(head.readNBytes(64), java.nio.charset.StandardCharsets.UTF_8).stripLeading();
            }
            // the name says where the input came from in any message about it
            Path copy = java.nio.file.Files.move(raw, dir.resolve(start.startsWith("{") || start.startsWith("[")
                    ? "stdin.json" : "stdin.yaml"));
            List<Path> paths = files.stream().map(p -> p.equals(Path.of("-")) ? copy : p).toList();
            try {
                return DumpSource.read(paths, now, new DumpSource.StandardInput(copy, readAt), KubeJson.MODEL).state();
            } catch (InputException e) {
                // messages name the input as the user gave it, not the temporary copy nodegate parsed
                throw new InputException(e.getMessage().replace(copy.toString(), "-f - (standard input)"), e);
            }
        } catch (java.io.IOException e) {
            throw new InputException("-f -: cannot read standard input: " + e.getMessage(), e);
        } finally {
            deleteQuietly(dir);
        }
    }

    private void checkOfflineFlags() {
        if (live.named()) {
            throw new InputException("-f cannot be combined with " + (live.context != null ? "--context" : "--kubeconfig")
                    + ": -f reads dumps, --context/--kubeconfig pick a live cluster; use one or the other");
        }
    }

    private void checkLiveFlags() {
        if (now != null) {
            throw new InputException("--now applies to -f dumps only; a live read uses the local clock");
        }
    }
}
