package io.nodegate.deploy;

import io.nodegate.testing.CliRun;
import io.nodegate.testing.Helm;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static io.nodegate.testing.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/fleet, the Rancher Fleet bundle: its chart is what `nodegate install --with-policy --with-alerts
 * --with-policy-reports` prints (the Namespace aside: Fleet creates it, with the labels fleet.yaml gives it), with
 * the cluster's name as a value that reaches the watch as --cluster-name. Fleet renders a bundle with Helm, and
 * templates `${ .ClusterName }` only into Helm values, so the bundle is a Helm chart; these tests render it with the
 * real Helm (built by bin/helm at the pinned version) for the defaults and for each targetCustomization of fleet.yaml.
 *
 * <p>After changing what install emits, regenerate the chart's template with
 * {@code NODEGATE_WRITE_FLEET=1 mvn -q -Dtest=FleetBundleTest test} and review the diff.
 */
class FleetBundleTest {

    private static final Path BUNDLE = Path.of("deploy/fleet");
    private static final Path CHART = BUNDLE.resolve("chart");
    private static final Path TEMPLATE = CHART.resolve("templates/nodegate.yaml");
    private static final YAMLMapper YAML = new YAMLMapper();
    /** The image the committed template is generated with; the chart's values.yaml sets the real default. */
    private static final String IMAGE = "nodegate-image-placeholder:0";
    private static final String[] FLAGS = {"--with-policy", "--with-alerts", "--with-policy-reports"};

    @Test
    void theCommittedTemplateIsWhatInstallGenerates() throws IOException {
        String expected = template();
        if ("1".equals(System.getenv("NODEGATE_WRITE_FLEET"))) {
            Files.writeString(TEMPLATE, expected);
        }
        assertThat(Files.readString(TEMPLATE)).as("%s differs from what install emits (regenerate: "
                + "NODEGATE_WRITE_FLEET=1 mvn -q -Dtest=FleetBundleTest test)", TEMPLATE).isEqualTo(expected);
        JsonNode chart = YAML.readTree(Files.readString(CHART.resolve("Chart.yaml")));
        assertThat(chart.path("version").asString()).isEqualTo(version());
        assertThat(chart.path("appVersion").asString()).isEqualTo(version());
    }

    /** helm template with the chart's defaults and a cluster name: install's objects, the watch told its cluster. */
    @Test
    void helmRendersInstallsObjectsWithTheClusterName() throws Exception {
        Map<String, JsonNode> rendered = objects(helm("--set", "clusterName=edge-07"));
        Map<String, JsonNode> expected = expected(YAML.readTree(Files.readString(CHART.resolve("values.yaml"))),
                "edge-07");
        assertThat(rendered).isEqualTo(expected);
    }

    /** Without a cluster name Helm refuses to render: every metric would lack the label that tells clusters apart. */
    @Test
    void helmRefusesToRenderWithoutAClusterName() throws Exception {
        Result r = helmRun("template", "nodegate", CHART.toString(), "--namespace", "nodegate-system");
        assertThat(r.exit).isNotZero();
        assertThat(r.err).contains("clusterName");
    }

    /**
     * Each environment of fleet.yaml as Fleet renders it for a cluster of that environment: the bundle's values,
     * then the customization's values over them, `${ .ClusterName }` templated to the cluster's name.
     */
    @Test
    void everyTargetCustomizationRendersForItsClusters() throws Exception {
        JsonNode fleet = YAML.readTree(Files.readString(BUNDLE.resolve("fleet.yaml")));
        assertThat(fleet.path("helm").path("chart").asString()).isEqualTo("./chart");
        assertThat(fleet.path("helm").path("values").path("clusterName").asString()).isEqualTo("${ .ClusterName }");
        assertThat(fleet.path("defaultNamespace").asString()).isEqualTo(InstallSettings.DEFAULT_NAMESPACE);
        // Fleet creates the namespace; it carries the labels install gives it (pod security: restricted)
        JsonNode namespace = installObjects().values().stream()
                .filter(o -> o.path("kind").asString().equals("Namespace")).findFirst().orElseThrow();
        assertThat(fleet.path("namespaceLabels")).isEqualTo(namespace.path("metadata").path("labels"));

        JsonNode defaults = YAML.readTree(Files.readString(CHART.resolve("values.yaml")));
        List<String> names = new ArrayList<>();
        for (JsonNode target : fleet.path("targetCustomizations")) {
            String env = target.path("clusterSelector").path("matchLabels").path("env").asString();
            assertThat(env).as("customization %s selects clusters by their env label", target.path("name"))
                    .isNotEmpty();
            names.add(target.path("name").asString());
            String cluster = "c-" + env + "-1";
            ObjectNode values = (ObjectNode) defaults.deepCopy();
            merge(values, fleet.path("helm").path("values"));
            merge(values, target.path("helm").path("values"));
            values.put("clusterName", values.path("clusterName").asString().replace("${ .ClusterName }", cluster));
            Path file = Files.createDirectories(Path.of("target/fleet-test")).resolve(env + "-values.yaml");
            Files.writeString(file, YAML.writeValueAsString(values));
            Map<String, JsonNode> rendered = objects(helm("-f", file.toString()));
            assertThat(rendered).as("environment %s", env).isEqualTo(expected(values, cluster));
        }
        assertThat(names).as("one customization per environment").contains("production", "staging");
    }

    // ---- the template -------------------------------------------------------------------------------------------

    /** install's YAML as a Helm template: its own {{ }} (Prometheus' templates) kept literal, three values put in. */
    static String template() {
        StringBuilder out = new StringBuilder("# Generated from `nodegate install " + String.join(" ", FLAGS)
                + "` (FleetBundleTest); do not edit by hand:\n# FleetBundleTest says how to regenerate.\n");
        for (String doc : installYaml().split("(?m)^---\\s*$")) {
            if (doc.isBlank() || doc.contains("\nkind: \"Namespace\"\n")) {
                continue;
            }
            String t = doc.strip().replace("{{", "\u0000").replace("}}", "\u0001")
                    .replace("\u0000", "{{ \"{{\" }}").replace("\u0001", "{{ \"}}\" }}");
            if (t.contains("\nkind: \"Deployment\"\n")) {
                t = replaceOnce(t, "image: \"" + IMAGE + "\"", "image: {{ .Values.image | quote }}");
                t = replaceOnce(t, "  replicas: 2\n", "  replicas: {{ .Values.replicas }}\n");
                t = replaceOnce(t, "        - \"watch\"\n", "        - \"watch\"\n        - \"--cluster-name\"\n"
                        + "        - {{ required \"clusterName: the name of this cluster (fleet.yaml gives "
                        + "${ .ClusterName })\" .Values.clusterName | quote }}\n");
            }
            out.append("---\n").append(t).append('\n');
        }
        return out.toString();
    }

    private static String replaceOnce(String text, String what, String with) {
        int at = text.indexOf(what);
        assertThat(at).as("the Deployment holds %s", what).isNotNegative();
        assertThat(text.indexOf(what, at + 1)).as("the Deployment holds %s once", what).isNegative();
        return text.substring(0, at) + with + text.substring(at + what.length());
    }

    private static String installYaml() {
        List<String> args = new ArrayList<>(List.of("install", "--image", IMAGE));
        args.addAll(List.of(FLAGS));
        CliRun install = run(args.toArray(String[]::new));
        assertThat(install.exitCode()).as(install.err()).isZero();
        return install.out();
    }

    private static Map<String, JsonNode> installObjects() {
        return objects(installYaml());
    }

    /** What the chart must render with {@code values}: install's objects with the values in, the Namespace aside. */
    private static Map<String, JsonNode> expected(JsonNode values, String cluster) {
        List<String> args = new ArrayList<>(List.of("install", "--image", values.path("image").asString(),
                "--replicas", values.path("replicas").asString()));
        args.addAll(List.of(FLAGS));
        CliRun install = run(args.toArray(String[]::new));
        assertThat(install.exitCode()).as(install.err()).isZero();
        Map<String, JsonNode> objects = objects(install.out());
        objects.keySet().removeIf(id -> id.startsWith("v1/Namespace/"));
        for (JsonNode o : objects.values()) {
            if (o.path("kind").asString().equals("Deployment")) {
                ArrayNode old = (ArrayNode) o.path("spec").path("template").path("spec").path("containers").get(0)
                        .path("args");
                List<JsonNode> kept = new ArrayList<>();
                old.forEach(kept::add);
                old.removeAll();
                old.add(kept.get(0)).add("--cluster-name").add(cluster);
                kept.subList(1, kept.size()).forEach(old::add);
            }
        }
        return objects;
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private static String helm(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("template", "nodegate", CHART.toString(), "--namespace",
                InstallSettings.DEFAULT_NAMESPACE));
        all.addAll(List.of(args));
        Result r = helmRun(all.toArray(String[]::new));
        assertThat(r.exit).as("helm %s: %s", String.join(" ", all), r.err).isZero();
        return r.out;
    }

    record Result(int exit, String out, String err) {
    }

    private static Result helmRun(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Helm.require()));
        command.addAll(List.of(args));
        Path err = Files.createTempFile("helm", ".err");
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(err.toFile());
        // a Helm of its own: no user's repositories, plugins or cache
        Path home = Files.createDirectories(Path.of("target/fleet-test/helm-home"));
        pb.environment().put("HELM_CACHE_HOME", home.resolve("cache").toAbsolutePath().toString());
        pb.environment().put("HELM_CONFIG_HOME", home.resolve("config").toAbsolutePath().toString());
        pb.environment().put("HELM_DATA_HOME", home.resolve("data").toAbsolutePath().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        String e = Files.readString(err);
        Files.deleteIfExists(err);
        return new Result(p.exitValue(), out, e);
    }

    /** Helm values merge as Fleet merges them: maps key by key, anything else replaced. */
    private static void merge(ObjectNode into, JsonNode over) {
        over.properties().forEach(e -> {
            if (e.getValue().isObject() && into.path(e.getKey()).isObject()) {
                merge((ObjectNode) into.get(e.getKey()), e.getValue());
            } else {
                into.set(e.getKey(), e.getValue().deepCopy());
            }
        });
    }

    /** Objects by apiVersion/kind/namespace/name. */
    private static Map<String, JsonNode> objects(String yaml) {
        Map<String, JsonNode> out = new TreeMap<>();
        for (String doc : yaml.split("(?m)^---\\s*$")) {
            if (doc.isBlank()) {
                continue;
            }
            JsonNode o = YAML.readTree(doc);
            if (o == null || o.isNull() || o.isMissingNode() || o.isEmpty()) {
                continue;
            }
            String id = o.get("apiVersion").asString() + "/" + o.get("kind").asString() + "/"
                    + (o.get("metadata").has("namespace") ? o.get("metadata").get("namespace").asString() : "") + "/"
                    + o.get("metadata").get("name").asString();
            assertThat(out.put(id, o)).as("object twice: " + id).isNull();
        }
        assertThat(out).isNotEmpty();
        return out;
    }

    private static String version() throws IOException {
        try (InputStream in = FleetBundleTest.class.getResourceAsStream("/io/nodegate/version.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
    }
}
