package io.nodegate.cli;

import io.nodegate.lifecycle.baseline.BaselineFile;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.handover.HandoverReading;
import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.NodeHandover;
import io.nodegate.source.kube.ApiReader;
import io.nodegate.probe.KubeletEvidence;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.handover.run.EvidenceReader;
import io.nodegate.handover.run.HandoverLooker;
import io.nodegate.handover.run.SilenceKeeper;
import io.nodegate.model.ClusterState;
import io.nodegate.model.TombstoneBook;
import io.nodegate.probe.KubeletProbe;
import io.nodegate.source.alertmanager.AlertmanagerClient;
import io.nodegate.source.dump.DumpSource;
import io.nodegate.source.kube.LiveSource;
import io.nodegate.handover.HandoverStatus;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a hand-over command reads from: the cluster giving the nodes (--kubeconfig/--context, as kubectl), the
 * destination (the context recorded at open, or --to-context/--to-kubeconfig given again), any other cluster
 * (--fleet-context/--fleet-kubeconfig), the lifecycle's evidence directory, the targets' kubelet ports, and the
 * Alertmanager replicas (those recorded at open, or --alertmanager given again). Offline, from saved files:
 * --record, -f, --to-dump, --fleet-dump.
 */
public final class HandoverSources {

    @Mixin
    LiveOptions live = new LiveOptions();

    @Mixin
    FleetFlags fleet = new FleetFlags();

    @Option(names = "--to-context", paramLabel = "CONTEXT",
            description = "The destination's kubeconfig context (default: the one recorded at open).")
    String toContext;

    @Option(names = "--to-kubeconfig", paramLabel = "FILE",
            description = "A kubeconfig for the destination (its current context, or --to-context in it).")
    Path toKubeconfig;

    @Option(names = "--alertmanager", paramLabel = "URL",
            description = "An Alertmanager replica's base URL (repeatable; every replica separately). At open they are"
                    + " recorded; later they replace the recorded ones for this run.")
    List<String> alertmanagers = new ArrayList<>();

    @Option(names = "--alertmanager-timeout", paramLabel = "DURATION", defaultValue = "5s",
            converter = DurationConverter.Positive.class,
            description = "Deadline of each Alertmanager request, for the whole answer: connect, headers and body "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration alertmanagerTimeout = Duration.ofSeconds(5);

    @Option(names = "--evidence-dir", paramLabel = "DIR",
            description = "Where gate, remove and verify-gone wrote their records (default: the --baseline's, else "
                    + "${XDG_STATE_HOME:-~/.local/state}/nodegate/<cluster>).")
    Path evidenceDir;

    @Option(names = "--baseline", paramLabel = "FILE",
            description = "The baseline gate, remove and verify-gone used: its evidence directory is read.")
    Path baseline;

    @Option(names = "--probe-kubelets",
            description = "Knock on each target's kubelet port (TCP + TLS, nothing sent): another cluster's "
                    + "certificate there before step 3 is a violation.")
    boolean probeKubelets;

    @Mixin
    KubeletProbeOptions kubeletProbe = new KubeletProbeOptions();

    @Option(names = {"-n", "--namespace"}, paramLabel = "NAMESPACE", defaultValue = TombstoneBook.DEFAULT_NAMESPACE,
            description = "Where `nodegate remove` records tombstones (default: ${DEFAULT-VALUE}).")
    String tombstoneNamespace = TombstoneBook.DEFAULT_NAMESPACE;

    @Option(names = "--cluster-address", paramLabel = "HOST",
            description = "Another name or address of the giving cluster (a VIP) for judging host reports; "
                    + "repeatable.")
    List<String> clusterAddresses = new ArrayList<>();

    /** The giving cluster as people name it: the context given, else the kubeconfig's, else its server. */
    String givingName(ApiReader api) {
        if (live.context != null) {
            return live.context;
        }
        String ctx = api.connection().context();
        return ctx != null ? ctx : api.connection().server();
    }

    void checkAlertmanagers() {
        alertmanagers.forEach(AlertmanagerClient::checkUrl);
        long replicas = alertmanagers.stream().map(u -> AlertmanagerClient.checkUrl(u).toString()).distinct().count();
        if (replicas > HandoverStatus.SILENCE_LIMIT) {
            throw new InputException("--alertmanager: " + replicas + " replicas given; a hand-over keeps "
                    + "its silence on at most " + HandoverStatus.SILENCE_LIMIT + " (the record "
                    + "holds one row per replica)");
        }
        alertmanagers.forEach(u -> HandoverCommand.checkLength("--alertmanager " + u, u, 2048));
    }

    /** The replicas, made canonical (a trailing slash dropped), as they are recorded. */
    List<String> canonicalAlertmanagers() {
        return alertmanagers.stream().map(u -> AlertmanagerClient.checkUrl(u).toString()).distinct().toList();
    }

    /** A live look: reads everything, keeps the silences when {@code act}. */
    HandoverLooker liveLooker(ApiReader api, String givingName, Clock clock, boolean act) {
        checkAlertmanagers();
        if (probeKubelets) {
            kubeletProbe.check();
        }
        HandoverLooker.KubeletSource kubelets = !probeKubelets ? HandoverLooker.NO_PROBE : (h, giving) -> {
            KubeletEvidence ke = new KubeletEvidence(api, kubeletProbe.port, kubeletProbe.timeout);
            var cas = ke.clusterCas();
            List<KubeletProbe.Target> targets = h.spec().targets().stream().map(t -> new KubeletProbe.Target(t.node(),
                    t.internalIps().isEmpty() ? null : t.internalIps().get(0))).toList();
            return new KubeletProbe(kubeletProbe.port, kubeletProbe.timeout, cas.certificates()).probeAll(targets);
        };
        return new HandoverLooker(HandoverLooker.live(api, givingName, tombstoneNamespace),
                h -> others(h, clock), h -> evidence(h, api.server(), false), kubelets,
                new SilenceKeeper(alertmanagerTimeout, clock), canonicalAlertmanagers(), act, clock);
    }

    /** The destination (recorded context, or the flags given again) and the fleet clusters, read live. */
    private List<HandoverReading.Other> others(NodeHandover h, Clock clock) {
        List<HandoverReading.Other> out = new ArrayList<>();
        HandoverSpec.Destination dest = h.spec().destination();
        String context = toContext != null ? toContext : dest == null ? null : dest.context();
        if (dest != null && (context != null || toKubeconfig != null)) {
            out.add(readCluster(dest.cluster(), context, toKubeconfig));
        }
        FleetFlags.Views views = fleet.read(live, clock);
        if (views != null && views.error() != null) {
            out.add(new HandoverReading.Other("fleet", false, null, views.error()));
        } else if (views != null) {
            views.views().forEach(v -> out.add(HandoverLooker.other(v.name(), false, v.state())));
        }
        return out;
    }

    private HandoverReading.Other readCluster(String name, String context, Path kubeconfig) {
        Path file = kubeconfig != null ? kubeconfig : live.kubeconfig;
        try (LiveSource source = LiveSource.open(file, context, live.requestTimeout, live.lastAsked)) {
            return new HandoverReading.Other(name, true, new ApiReader(source.api()).nodes(), null);
        } catch (CollectionException e) {
            return new HandoverReading.Other(name, true, null, e.getMessage());
        } catch (InputException e) {
            throw new InputException("the destination " + name + ": " + e.getMessage() + " (give --to-context or "
                    + "--to-kubeconfig for how this workstation reaches it)", e);
        }
    }

    /**
     * The evidence directory: --evidence-dir, else the --baseline's, else the default one of the giving cluster
     * when it exists. {@code required}: a step that is decided on those records refuses to go without them.
     */
    HandoverReading.Evidence evidence(NodeHandover h, String server, boolean required) {
        Path dir = evidenceDir;
        if (dir == null && baseline != null) {
            var b = BaselineFile.read(baseline);
            dir = b.evidenceDir() != null ? Path.of(b.evidenceDir()) : baseline.toAbsolutePath().getParent();
        }
        if (dir == null && server != null) {
            Path fallback = EvidenceStore.defaultDir(server);
            dir = Files.isDirectory(fallback) ? fallback : null;
            if (dir == null && required) {
                throw new InputException("this step is decided on the records gate, remove and verify-gone wrote; "
                        + "the default evidence directory " + fallback + " does not exist: give --evidence-dir DIR "
                        + "or --baseline FILE");
            }
        }
        if (dir == null) {
            if (required) {
                throw new InputException("this step is decided on the records gate, remove and verify-gone wrote: "
                        + "give --evidence-dir DIR or --baseline FILE");
            }
            return null;
        }
        return EvidenceReader.read(dir, h.spec().nodes());
    }

    boolean evidenceGiven() {
        return evidenceDir != null || baseline != null;
    }

    // ------------------------------------------------------------------------------------------------ offline

    /** Saved files instead of live clusters: the hand-over, the giving cluster, the destination, other clusters. */
    static final class Offline {
        @Option(names = "--record", paramLabel = "FILE",
                description = "Offline: the NodeHandover saved as JSON or YAML (kubectl get nodehandover NAME -o json)"
                        + "; nothing is written.")
        Path record;

        @Option(names = {"-f", "--filename"}, paramLabel = "PATH",
                description = "Offline: the giving cluster as saved by `nodegate collect` or kubectl (repeatable).")
        List<Path> giving = new ArrayList<>();

        @Option(names = "--to-dump", paramLabel = "PATH",
                description = "Offline: the destination as saved (a `nodegate collect` directory).")
        Path destination;

        @Option(names = "--fleet-dump", paramLabel = "PATH",
                description = "Offline: another cluster as saved (repeatable).")
        List<Path> fleet = new ArrayList<>();

        @Option(names = "--now", paramLabel = "TIME",
                description = "Offline: when the look happened (default: the giving dump's collection time).")
        String now;

        boolean given() {
            return record != null || !giving.isEmpty() || destination != null || !fleet.isEmpty();
        }
    }

    /** A look at saved files: nothing is asked of any API server or Alertmanager, nothing is written. */
    HandoverLooker offlineLooker(Offline offline, NodeHandover h) {
        if (offline.giving.isEmpty()) {
            throw new InputException("--record needs the giving cluster as saved: -f DIR (a `nodegate collect` "
                    + "directory)");
        }
        if (live.named() || toContext != null || toKubeconfig != null || !alertmanagers.isEmpty()) {
            throw new InputException("--record reads saved files only: drop --kubeconfig/--context/--to-context/"
                    + "--to-kubeconfig/--alertmanager, or drop --record to look at the live clusters");
        }
        ClusterState giving = DumpSource.load(offline.giving, offline.now);
        String givingName = giving.context() != null ? giving.context()
                : offline.giving.get(0).toAbsolutePath().normalize().getFileName().toString();
        List<HandoverReading.Other> others = new ArrayList<>();
        if (offline.destination != null) {
            String name = h.spec().destination() == null ? offline.destination.getFileName().toString()
                    : h.spec().destination().cluster();
            others.add(HandoverLooker.other(name, true, DumpSource.load(List.of(offline.destination), null)));
        }
        for (Path p : offline.fleet) {
            ClusterState s = DumpSource.load(List.of(p), null);
            others.add(HandoverLooker.other(s.context() != null ? s.context() : p.getFileName().toString(), false, s));
        }
        Clock at = Clock.fixed(giving.now(), java.time.ZoneOffset.UTC);
        return new HandoverLooker(HandoverLooker.saved(giving, givingName), x -> others,
                x -> evidenceDir == null ? null : EvidenceReader.read(evidenceDir, x.spec().nodes()),
                HandoverLooker.NO_PROBE, null, null, false, at);
    }
}
