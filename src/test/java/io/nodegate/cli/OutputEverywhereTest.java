package io.nodegate.cli;

import io.nodegate.testing.SeededClusterTest;
import io.nodegate.testing.SeedCluster;
import io.nodegate.deploy.CrdRules;
import io.nodegate.testing.CliRun;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.xml.sax.InputSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The acceptance test of the one output path: every command of the tree picocli builds (so a command added tomorrow
 * is walked too, and fails here until it is given a way to run below) is run in every format its -o takes, on the
 * bundled examples or on seed 000 served over HTTP, and what it prints is parsed: JSON by Jackson, YAML by
 * snakeyaml, JUnit by the JDK's XML parser, -o name line by line as kind/name, a table is not empty, carries no
 * escape codes into a pipe, and a list's table fits 120 columns (the lifecycle's reports keep file paths, sha256
 * sums and shell commands to paste on one line each), and --no-headers prints one row per name -o name prints.
 */
class OutputEverywhereTest extends SeededClusterTest {

    /**
     * Commands that print no report: the completion script is a program for the shell, as kubectl's is (and the
     * hidden __complete answers that script in cobra's line format).
     */
    private static final Set<String> WITHOUT_OUTPUT = Set.of("completion");

    /** kubectl's -o name: kind, optionally .group, then /name (cli-runtime pkg/printers/name.go). */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]+(\\.[a-z0-9.-]+)?/[A-Za-z0-9._:-]+");

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The kubelet `probe kubelet` asks (see kubelet()). */
    private io.nodegate.testing.KubeletTlsServer kubelet;

    /** The Redfish servers of the batch-stop example, started when `bmc` is walked. */
    private io.nodegate.testing.BmcStory bmcs;

    /** The API server the NodeHandover CRD was installed on. */
    private Object crdOn;

    /** How to run each command in a format: what it prints, on a cluster or example it can read. */
    private Map<String, Function<Out, CliRun>> invocations() {
        Map<String, Function<Out, CliRun>> runs = new LinkedHashMap<>();
        String healthy = "examples/healthy";
        String k3s = "examples/k3s-six-nodes";
        runs.put("audit", o -> offline("audit", "-f", "examples/cluster-a-renamed-rejoin", o.flags()));
        runs.put("collect", o -> cli("collect", "--kubeconfig", kubeconfig(), "--dir", tmp.resolve("collect-" + o.id()).toString(), o.flags()));
        runs.put("baseline save", o -> cli("baseline", "save", "--targets", "gpu-a10,gpu-a11", "--control",
                "keep-1", "--evidence-dir", evidence.toString(), "--out",
                tmp.resolve("baseline-" + o.id() + ".json").toString(), o.flags()));
        runs.put("gate", o -> {
            clock.set(seed.gateTime);
            return cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply,
                    "--reply-from", "infra-kim", o.flags());
        });
        runs.put("remove", o -> {
            // remove deletes the Node: each format gets a cluster of its own, gated
            reseed();
            clock.set(seed.gateTime);
            CliRun gate = cli("gate", "gpu-a11", "--baseline", baseline.toString(), "--removed-at", seed.a11Reply);
            assertThat(gate.exitCode()).as(gate.all()).isZero();
            playGarbageCollector("gpu-a11");
            return cli("remove", "gpu-a11", "--baseline", baseline.toString(), o.flags());
        });
        runs.put("verify-gone", o -> cli("verify-gone", "--baseline", baseline.toString(), o.flags()));
        runs.put("accept", o -> cli("accept", "gpu-a10", "--baseline", baseline.toString(), o.flags()));
        runs.put("readmit", o -> cli("readmit", "gpu-a10", "--baseline", baseline.toString(), o.flags()));
        runs.put("rejoin-risk", o -> cli("rejoin-risk", "gpu-a10", o.flags()));
        runs.put("handover open", o -> {
            if (crdOn != api) {
                CrdRules.install(api);
                crdOn = api;
            }
            return cli("handover", "open", "h-" + o.id(), "--nodes", "gpu-a10", "--type", "move", "--to", "cluster-b",
                    "--due", java.time.LocalDate.now(java.time.ZoneOffset.UTC).plusDays(30).toString(), "--requester", "lee", o.flags());
        });
        runs.put("handover step", o -> cli("handover", "step", "h-" + o.id(), "1", "--by", "kim", o.flags()));
        runs.put("handover status", o -> cli("handover", "status", o.flags()));
        runs.put("handover close", o -> cli("handover", "close", "h-" + o.id(), "--by", "kim", "--reason", "test", o.flags()));
        runs.put("handover report", o -> offline("handover", "report", "--record",
                "examples/handover-case-2/nodehandover.json", "--html", tmp.resolve("page-" + o.id() + ".html").toString(),
                o.flags()));
        runs.put("policy", o -> offline("policy", o.flags()));
        runs.put("inventory init", o -> offline("inventory", "init", "-f", "examples/cluster-a-renamed-rejoin", o.flags()));
        runs.put("etcd", o -> offline("etcd", "-f", k3s, o.flags()));
        runs.put("views", o -> offline("views", "-f", "examples/split-brain/original-side", "-f",
                "examples/split-brain/separated-side", o.flags()));
        runs.put("fleet", o -> offline("fleet", "-f", "examples/fleet-departure/cluster-a", "-f",
                "examples/fleet-departure/cluster-b", o.flags()));
        runs.put("redundancy", o -> offline("redundancy", "-f", k3s, o.flags()));
        runs.put("probe apiservers", o -> {
            // the apiserver list of a real cluster: the default/kubernetes EndpointSlice, here the test server itself
            api.apply(new io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder().withNewMetadata()
                    .withName("kubernetes").withNamespace("default")
                    .addToLabels("kubernetes.io/service-name", "kubernetes").endMetadata().withAddressType("IPv4")
                    .addNewPort().withName("https").withPort(java.net.URI.create(api.url()).getPort())
                    .withProtocol("TCP").endPort().addNewEndpoint().withAddresses("127.0.0.1").withNewConditions()
                    .withReady(true).endConditions().endEndpoint().build());
            return cli("probe", "apiservers", "--kubeconfig", kubeconfig(), "--count", "1", o.flags());
        });
        runs.put("probe kubelet", o -> cli("probe", "kubelet", "kubelet-1", "--kubeconfig", kubeconfig(),
                "--kubelet-port", String.valueOf(kubelet().port()), "--probe-timeout", "2s", o.flags()));
        runs.put("host inspect", o -> offline("host", "inspect", "--root",
                "src/test/resources/host-trees/stopped/tree", "--systemctl",
                "src/test/resources/host-trees/stopped/systemctl", o.flags()));
        runs.put("bmc", o -> {
            if (bmcs == null) {
                Path dir = directory("bmc");
                bmcs = io.nodegate.testing.BmcStory.start(io.nodegate.testing.TestCerts.create(dir), dir);
            }
            return offline("bmc", "-f", io.nodegate.testing.BmcStory.EXAMPLE, bmcs.flags().toArray(String[]::new),
                    o.flags());
        });
        runs.put("watch", o -> cli("watch", "--once", o.flags()));
        runs.put("alerts", o -> offline("alerts", o.flags()));
        runs.put("install", o -> offline("install", "--image", "registry.example/nodegate:0.1.0", o.flags()));
        runs.put("version", o -> offline("version", o.flags()));
        return runs;
    }

    @Test
    void everyCommandPrintsEveryFormatItTakesInAFormThatParses() throws Exception {
        seedAtGateTime();
        Map<String, Function<Out, CliRun>> runs = invocations();
        List<String> problems = new ArrayList<>();
        Set<String> walked = new TreeSet<>();
        for (CommandSpec command : commands(Nodegate.newCommandLine().getCommandSpec())) {
            String name = command.qualifiedName(" ").replaceFirst("^nodegate ", "");
            if (WITHOUT_OUTPUT.contains(name) || command.usageMessage().hidden()) {
                continue;
            }
            OptionSpec output = command.findOption("--output");
            if (output == null) {
                problems.add(name + ": no -o/--output");
                continue;
            }
            List<String> formats = new ArrayList<>();
            output.completionCandidates().forEach(formats::add);
            if (!formats.containsAll(List.of("table", "wide", "json", "yaml"))) {
                problems.add(name + ": -o takes " + formats + ", not all of table, wide, json and yaml");
            }
            Function<Out, CliRun> run = runs.get(name);
            if (run == null) {
                problems.add(name + ": no way to run it in this test; add one to invocations()");
                continue;
            }
            walked.add(name);
            boolean listing = command.findOption("--no-headers") != null;
            assertThat(listing).as(name + ": -o name and --no-headers come together")
                    .isEqualTo(formats.contains("name"));
            List<String> names = List.of();
            for (String format : formats) {
                CliRun out = run.apply(new Out(format, false));
                if (format.equals("name")) {
                    names = lines(out.out());
                }
                String where = name + " -o " + format + " (exit " + out.exitCode() + "): ";
                if (out.exitCode() == 2) {
                    problems.add(where + "usage error: " + out.err());
                    continue;
                }
                String problem = check(format, listing, out.out());
                if (problem != null) {
                    problems.add(where + problem + "\n" + out.all());
                }
            }
            if (listing) {
                if (names.isEmpty()) {
                    problems.add(name + " -o name: printed nothing, so this test proved nothing about it");
                }
                CliRun bare = run.apply(new Out("table", true));
                if (lines(bare.out()).size() != names.size()) {
                    problems.add(name + " --no-headers: " + lines(bare.out()).size() + " rows but -o name lists "
                            + names.size() + "\n" + bare.all());
                }
            }
        }
        if (bmcs != null) {
            bmcs.close();
        }
        if (kubelet != null) {
            kubelet.close();
        }
        assertThat(problems).as(String.join("\n\n", problems)).isEmpty();
        assertThat(walked).as("every command the README teaches is walked").contains("audit", "gate", "remove",
                "fleet", "views", "install", "handover status", "watch");
    }

    /** Every command under {@code root}, depth first, each once (picocli lists aliases twice). */
    private static List<CommandSpec> commands(CommandSpec root) {
        List<CommandSpec> all = new ArrayList<>();
        for (CommandLine sub : root.subcommands().values().stream().distinct().toList()) {
            CommandSpec spec = sub.getCommandSpec();
            if (spec.name().equals("help")) {
                continue;
            }
            if (spec.subcommands().isEmpty() || spec.findOption("--output") != null) {
                all.add(spec);
            }
            all.addAll(commands(spec));
        }
        return all;
    }

    /** Why {@code text} is not what {@code format} promises, or null. */
    private static String check(String format, boolean listing, String text) {
        try {
            switch (format) {
                case "json" -> {
                    JsonNode tree = JSON.readTree(text);
                    if (tree == null || tree.isMissingNode() || tree.isEmpty()) {
                        return "empty JSON";
                    }
                }
                case "yaml", "policyreport", "rule-file" -> {
                    List<Object> docs = new ArrayList<>();
                    new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(text).forEach(d -> {
                        if (d != null) {
                            docs.add(d);
                        }
                    });
                    if (docs.isEmpty()) {
                        return "no YAML document";
                    }
                    if (text.trim().startsWith("{")) {
                        return "JSON where YAML was asked for";
                    }
                }
                case "junit" -> DocumentBuilderFactory.newInstance().newDocumentBuilder()
                        .parse(new InputSource(new StringReader(text)));
                case "name" -> {
                    for (String line : lines(text)) {
                        if (!NAME.matcher(line).matches()) {
                            return "not kind/name: " + line;
                        }
                    }
                }
                case "table", "wide" -> {
                    if (text.isBlank()) {
                        return "empty table";
                    }
                    if (text.contains("\u001b[")) {
                        return "escape codes into a pipe";
                    }
                    if (format.equals("table")) {
                        for (String line : text.split("\n")) {
                            if (line.length() > 120) {
                                return "a line of " + line.length() + " columns: " + line;
                            }
                        }
                    }
                }
                default -> {
                    return "a format this test does not know how to parse; teach it";
                }
            }
        } catch (Exception e) {
            return "does not parse as " + format + ": " + e.getMessage();
        }
        return null;
    }

    private static List<String> lines(String text) {
        return text.lines().filter(l -> !l.isBlank()).toList();
    }

    /**
     * A kubelet of this cluster's CA answering on 127.0.0.1, and its Node, for `probe kubelet` (the seed's Nodes
     * have TEST-NET addresses where nothing answers).
     */
    private io.nodegate.testing.KubeletTlsServer kubelet() {
        if (kubelet == null) {
            io.nodegate.testing.TestCerts certs = io.nodegate.testing.TestCerts.create(directory("kubelet-certs"));
            var ca = certs.authority("server-ca", "rke2-server-ca@1760000000");
            var serving = certs.kubeletServing(ca, "kubelet-1", "kubelet-1", "127.0.0.1");
            kubelet = io.nodegate.testing.KubeletTlsServer.start("127.0.0.1", 0, serving.chain(), serving.key());
            try {
                api.create(new io.fabric8.kubernetes.api.model.ConfigMapBuilder().withNewMetadata()
                        .withName("kube-root-ca.crt").withNamespace("kube-system").endMetadata()
                        .addToData("ca.crt", java.nio.file.Files.readString(ca.cert())).build());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            api.create(SeedCluster.node("kubelet-1", "127.0.0.1", "True", false, Map.of(), "boot-k1", "uuid-k1", 0,
                    seed.t0, null));
        }
        return kubelet;
    }

    private Path directory(String name) {
        try {
            return java.nio.file.Files.createDirectories(tmp.resolve(name));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A kubeconfig for the current test API server, for commands that read one rather than the environment. */
    private String kubeconfig() {
        return api.writeKubeconfig(tmp.resolve("kubeconfig-" + api.url().hashCode())).toString();
    }

    /** A fresh seed 000 with its baseline, for commands that change the cluster. */
    private void reseed() {
        tearDown();
        seedAtGateTime();
    }

    /** One run's output flags: -o FORMAT, and --no-headers with it when asked. */
    record Out(String format, boolean noHeaders) {
        String[] flags() {
            return noHeaders ? new String[]{"-o", format, "--no-headers"} : new String[]{"-o", format};
        }

        /** A name for what this run creates (files, hand-overs), unique per run. */
        String id() {
            return format + (noHeaders ? "-nh" : "");
        }
    }

    /** A command line that reads files only, with the output flags at its end. */
    private static CliRun offline(Object... args) {
        return CliRun.run(flatten(args));
    }

    private CliRun cli(Object... args) {
        return super.cli(flatten(args));
    }

    private static String[] flatten(Object... args) {
        List<String> out = new ArrayList<>();
        for (Object a : args) {
            if (a instanceof String[] many) {
                out.addAll(List.of(many));
            } else {
                out.add((String) a);
            }
        }
        return out.toArray(String[]::new);
    }
}
