package io.nodegate.deploy;

import io.nodegate.testing.CliRun;
import io.nodegate.testing.Kubectl;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
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
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.nodegate.testing.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/kustomize stays what `nodegate install` prints: the committed files are exactly what
 * {@link KustomizeLayout} generates from InstallBundle, and the real kustomize (kubectl's built-in `kubectl
 * kustomize`) builds the base, each overlay, all components together, and an image override into the same objects
 * as the matching `nodegate install` command.
 *
 * <p>After changing what install emits, regenerate with
 * {@code NODEGATE_WRITE_KUSTOMIZE=1 mvn -q -Dtest=KustomizeTest test} and review the diff.
 *
 * <p>kubectl comes with this project's machine image (Google's kubectl 1.32, kustomize v5.5); none of the package
 * registries this project uses has a usable kustomize (Debian 12's kubernetes-client is kubectl 1.20 with kustomize
 * v2.0.3, which predates Components and the patches field). Without kubectl on PATH the build tests skip, and fail
 * under CI=true.
 */
class KustomizeTest {

    private static final Path ROOT = Path.of("deploy/kustomize");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final String IMAGE = "registry.example.com/ops/nodegate:0.1.0";

    @Test
    void theCommittedFilesAreWhatInstallGenerates() throws IOException {
        Map<String, String> expected = KustomizeLayout.files(version());
        if ("1".equals(System.getenv("NODEGATE_WRITE_KUSTOMIZE"))) {
            write(expected);
        }
        Map<String, String> committed = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                committed.put(ROOT.relativize(f).toString(), Files.readString(f));
            }
        }
        assertThat(committed.keySet()).as("files under deploy/kustomize (regenerate: NODEGATE_WRITE_KUSTOMIZE=1)")
                .containsExactlyInAnyOrderElementsOf(expected.keySet());
        expected.forEach((file, text) -> assertThat(committed.get(file))
                .as("deploy/kustomize/%s differs from what install emits (regenerate: NODEGATE_WRITE_KUSTOMIZE=1 mvn "
                        + "-q -Dtest=KustomizeTest test)", file).isEqualTo(text));
    }

    @Test
    void theBaseListsExactlyItsFiles() throws IOException {
        JsonNode kustomization = YAML.readTree(Files.readString(ROOT.resolve("base/kustomization.yaml")));
        List<String> resources = new ArrayList<>();
        kustomization.get("resources").forEach(r -> resources.add(r.asString()));
        TreeSet<String> files = new TreeSet<>();
        try (Stream<Path> list = Files.list(ROOT.resolve("base"))) {
            list.map(p -> p.getFileName().toString()).filter(n -> !n.equals("kustomization.yaml")).forEach(files::add);
        }
        assertThat(resources).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(files);
    }

    @Test
    void kustomizeBuildsTheBaseIntoWhatInstallPrints() throws Exception {
        assertThat(objects(kustomize(ROOT))).isEqualTo(install("--image", KustomizeLayout.IMAGE));
    }

    @Test
    void eachOverlayBuildsIntoInstallWithItsFlag() throws Exception {
        for (KustomizeLayout.Component c : KustomizeLayout.COMPONENTS) {
            assertThat(objects(kustomize(ROOT.resolve("overlays/with-" + c.name()))))
                    .as("overlays/with-%s vs install --with-%s", c.name(), c.name())
                    .isEqualTo(install("--image", KustomizeLayout.IMAGE, "--with-" + c.name()));
        }
    }

    /** What a user writes: the base, every component, and their own image. */
    @Test
    void allComponentsAndAnImageOverrideBuildIntoInstallWithEveryFlag() throws Exception {
        // kustomize takes relative paths only: the user's kustomization sits in a directory of the checkout
        Path dir = Files.createDirectories(Path.of("target/kustomize-test/everything"));
        StringBuilder k = new StringBuilder("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                + "resources:\n- " + dir.toAbsolutePath().relativize(ROOT.resolve("base").toAbsolutePath())
                + "\ncomponents:\n");
        List<String> flags = new ArrayList<>(List.of("--image", IMAGE));
        for (KustomizeLayout.Component c : KustomizeLayout.COMPONENTS) {
            Path component = ROOT.resolve("components/" + c.name()).toAbsolutePath();
            k.append("- ").append(dir.toAbsolutePath().relativize(component)).append('\n');
            flags.add("--with-" + c.name());
        }
        k.append("images:\n- name: nodegate\n  newName: registry.example.com/ops/nodegate\n  newTag: 0.1.0\n");
        Files.writeString(dir.resolve("kustomization.yaml"), k.toString());
        assertThat(objects(kustomize(dir))).isEqualTo(install(flags.toArray(String[]::new)));
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private static String kustomize(Path dir) throws Exception {
        String kubectl = Kubectl.require();
        Process p = new ProcessBuilder(kubectl, "kustomize", dir.toString()).redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as("kubectl kustomize %s: %s", dir, err).isZero();
        // no deprecation warnings either: what a user sees must be clean
        assertThat(err).as("kubectl kustomize %s stderr", dir).isBlank();
        return new String(out, StandardCharsets.UTF_8);
    }

    private static Map<String, JsonNode> install(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "install";
        System.arraycopy(args, 0, all, 1, args.length);
        CliRun install = run(all);
        assertThat(install.exitCode()).as(install.err()).isZero();
        return objects(install.out());
    }

    /** Objects by apiVersion/kind/namespace/name: kustomize orders by kind, install in apply order. */
    private static Map<String, JsonNode> objects(String yaml) {
        Map<String, JsonNode> out = new TreeMap<>();
        for (String doc : yaml.split("(?m)^---\\s*$")) {
            if (doc.isBlank()) {
                continue;
            }
            JsonNode o = YAML.readTree(doc);
            if (o == null || o.isNull() || o.isMissingNode()) {
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
        try (InputStream in = KustomizeTest.class.getResourceAsStream("/io/nodegate/version.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
    }

    private static void write(Map<String, String> files) throws IOException {
        if (Files.exists(ROOT)) {
            try (Stream<Path> old = Files.walk(ROOT)) {
                for (Path p : old.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        for (var e : files.entrySet()) {
            Path f = ROOT.resolve(e.getKey());
            Files.createDirectories(f.getParent());
            Files.writeString(f, e.getValue());
        }
    }
}
