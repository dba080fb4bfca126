package io.nodegate.cli;

import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Finding;
import io.nodegate.detect.controlplane.MultiViewDetector;
import io.nodegate.detect.controlplane.NamedView;
import io.nodegate.detect.controlplane.ViewsReport;
import io.nodegate.detect.controlplane.ViewsTable;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.detect.registry.Scope;
import io.nodegate.model.ClusterState;
import io.nodegate.render.ViewsRenderer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * `nodegate views`: reads the Nodes through several API servers of what should be one cluster and shows them
 * side by side. From the original cluster a split-off server only looks NotReady; its own API server shows a
 * different world (a repaired k3s server restarted without --server formed its own one-member cluster and looked
 * healthy from itself), so the split is visible only when both are asked.
 */
@Command(name = "views",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        description = {
                "Compare what several API servers of one cluster say about its Nodes (NG207).",
                "All API servers of one etcd cluster serve the same objects. A view that sees other nodes, other "
                        + "uids or another Ready status points at split brain: a server that formed its own etcd "
                        + "cluster and, seen from the original cluster, only looks NotReady.",
                "Give at least two views: several --context (of one kubeconfig), several --kubeconfig, or offline "
                        + "several -f DIR (one view per directory, e.g. `nodegate collect` output from each server)."},
        footer = {"",
                "Examples:",
                "  nodegate views --context cp-node-a --context cp-node-c",
                "  nodegate views --kubeconfig a.yaml --kubeconfig c.yaml -o json",
                "  nodegate views -f dump-from-a/ -f dump-from-c/ --now 2026-10-19T06:10:00Z",
                "",
                "Exit codes: 0 the views agree, 1 NG207 (warning or critical),",
                "            2 usage or input error, 3 a view could not be read (no valid comparison)."})
public final class ViewsCommand implements Callable<Integer> {

    private static final java.util.regex.Pattern NODE_NOTE = java.util.regex.Pattern.compile("(?<![A-Za-z])Node ");

    @Mixin
    ClusterSetOptions clusters = new ClusterSetOptions();

    @Mixin
    OutputOptions output = OutputOptions.of(ViewsRenderer.Output.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Null means the real sources; tests put a fixture loader here. */
    ViewLoader loader;

    private final Environment env;

    public ViewsCommand() {
        this(Environment.system());
    }

    ViewsCommand(Environment env) {
        this.env = env;
    }

    @Override
    public Integer call() {
        List<ViewSpec> specs = specs();
        ViewLoader effective = loader != null ? loader : ViewLoader.sources(clusters.now, clusters.requestTimeout, env.lastAsked());
        List<NamedView> views = new ArrayList<>();
        for (ViewSpec s : specs) {
            views.add(new NamedView(s.name(), load(effective, s)));
        }
        ViewsReport report = compare(views);
        output.print(spec.commandLine().getOut(), new ViewsRenderer.Output(report));
        return ReportExit.of(report.findings());
    }

    /** Runs the view detectors and builds the report; pure. */
    static ViewsReport compare(List<NamedView> views) {
        List<Finding> findings = new ArrayList<>();
        for (MultiViewDetector d : Detectors.in(Scope.VIEWS, MultiViewDetector.class)) {
            findings.addAll(d.detect(views, AuditSettings.DEFAULTS));
        }
        findings.sort(Finding.ORDER);
        List<String> notes = new ArrayList<>();
        Map<String, String> byServer = new LinkedHashMap<>();
        for (NamedView v : views) {
            String server = v.state().server();
            if (server != null && byServer.containsKey(server)) {
                notes.add("views " + byServer.get(server) + " and " + v.name() + " read the same server " + server
                        + ": they cannot disagree with each other");
            } else if (server != null) {
                byServer.put(server, v.name());
            }
            // only what bears on Node objects: notes about CSINodes, Jobs or heartbeat Leases do not change a view
            v.state().notes().stream().filter(n -> NODE_NOTE.matcher(n).find())
                    .forEach(n -> notes.add(v.name() + ": " + n));
        }
        notes.add("views are read one after another, not at one instant: a node that joined, left or changed "
                + "Ready between reads also shows as a difference");
        return ViewsReport.of(ViewsTable.of(views), findings, notes);
    }

    private ClusterState load(ViewLoader effective, ViewSpec s) {
        try {
            return Objects.requireNonNull(effective.load(s), "loader returned no state");
        } catch (CollectionException e) {
            throw new CollectionException("view " + s.name() + " (" + s.describe() + "): " + e.getMessage(), e);
        } catch (InputException e) {
            throw new InputException("view " + s.name() + " (" + s.describe() + "): " + e.getMessage(), e);
        }
    }

    /** The views asked for, validated: at least two, and no ambiguous mix of contexts and kubeconfigs. */
    List<ViewSpec> specs() {
        clusters.check("view");
        List<ViewSpec> specs = new ArrayList<>();
        if (!clusters.contexts.isEmpty()) {
            Path kubeconfig = clusters.contextsKubeconfig();
            for (String c : clusters.contexts) {
                specs.add(new ViewSpec(c, kubeconfig, c, null));
            }
        } else {
            for (Path k : clusters.kubeconfigs) {
                specs.add(new ViewSpec(baseName(k), k, null, null));
            }
        }
        for (Path d : clusters.dirs) {
            specs.add(new ViewSpec(baseName(d), null, null, d));
        }
        if (specs.size() < 2) {
            throw usage("views compares at least two views; got " + specs.size()
                    + ". Give two or more --context, --kubeconfig or -f DIR.");
        }
        return uniqueNames(specs);
    }

    private static List<ViewSpec> uniqueNames(List<ViewSpec> specs) {
        Map<String, Integer> counts = new HashMap<>();
        specs.forEach(s -> counts.merge(s.name(), 1, Integer::sum));
        Map<String, Integer> used = new HashMap<>();
        List<ViewSpec> out = new ArrayList<>();
        for (ViewSpec s : specs) {
            String name = s.name();
            if (counts.get(name) > 1) {
                // two files of one name (~/a/kubeconfig, ~/b/kubeconfig): the directory tells them apart
                Path source = s.files() != null ? s.files() : s.kubeconfig();
                Path parent = source == null ? null : source.toAbsolutePath().normalize().getParent();
                String withDir = parent == null || parent.getFileName() == null ? null
                        : parent.getFileName() + "/" + name;
                boolean unique = withDir != null && specs.stream().filter(o -> o != s).noneMatch(o -> {
                    Path op = o.files() != null ? o.files() : o.kubeconfig();
                    Path opp = op == null ? null : op.toAbsolutePath().normalize().getParent();
                    return opp != null && opp.getFileName() != null && o.name().equals(s.name())
                            && opp.getFileName().toString().equals(parent.getFileName().toString());
                });
                name = unique ? withDir : name + "#" + used.merge(name, 1, Integer::sum);
            }
            out.add(new ViewSpec(name, s.kubeconfig(), s.context(), s.files()));
        }
        return out;
    }

    private static String baseName(Path p) {
        Path name = p.toAbsolutePath().normalize().getFileName();
        return name == null ? p.toString() : name.toString();
    }

    private CommandLine.ParameterException usage(String message) {
        return clusters.usage(message);
    }
}
