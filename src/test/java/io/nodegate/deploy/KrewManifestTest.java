package io.nodegate.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/krew/nodegate.yaml, the krew plugin manifest. The committed file is a release template (nodegate has no
 * published release: its URI and sha256 are placeholders); deploy/krew/release.sh builds the archive and fills the
 * template in. Checked with krew's own rules (kubernetes-sigs/krew pkg/index/validation/validate.go: apiVersion,
 * kind, name = file name and [\w-]+, shortDescription, version semver, per platform a URI, a sha256 of 64 lower-case
 * hex digits, bin, files, a selector on os/arch only), and the archive with the launcher krew would link.
 */
class KrewManifestTest {

    private static final Path MANIFEST = Path.of("deploy/krew/nodegate.yaml");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Pattern SHA256 = Pattern.compile("^[a-f0-9]{64}$");
    /** krew's semver: a leading v, then major.minor.patch (pkg/installation/semver). */
    private static final Pattern VERSION = Pattern.compile("^v\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$");

    @Test
    void theTemplateHasEveryRequiredFieldAndPlaceholdersOnlyWhereTheReleaseFillsThemIn() throws IOException {
        JsonNode plugin = YAML.readTree(Files.readString(MANIFEST));
        List<String> problems = krewProblems(plugin, "nodegate");
        // exactly the values a release provides are missing: unfinished on purpose, and said so in the file
        assertThat(problems).containsExactlyInAnyOrder("spec.version RELEASE_VERSION is not semver",
                "platform 0: sha256 RELEASE_SHA256 is not 64 hex digits", "platform 0: uri RELEASE_URI is not https");
        assertThat(plugin.get("spec").get("homepage").asString()).isEqualTo("RELEASE_HOMEPAGE");
        assertThat(Files.readString(MANIFEST)).contains("UNFINISHED");
        assertThat(plugin.get("spec").get("description").asString()).isNotBlank();
    }

    @Test
    void theReleaseScriptFillsInAManifestKrewAcceptsForTheArchiveItBuilt(@TempDir Path dir) throws Exception {
        Path jar = Files.writeString(dir.resolve("nodegate.jar"), "not a real jar: the archive's content is checked");
        Path out = dir.resolve("out");
        Result release = run(dir, Map.of(), "bash", "deploy/krew/release.sh", "https://releases.example.com/nodegate",
                "https://example.com/nodegate", out.toString(), jar.toString());
        assertThat(release.exit).as(release.output).isZero();

        JsonNode plugin = YAML.readTree(Files.readString(out.resolve("nodegate.yaml")));
        assertThat(krewProblems(plugin, "nodegate")).isEmpty();
        JsonNode platform = plugin.get("spec").get("platforms").get(0);
        String version = plugin.get("spec").get("version").asString();
        Path archive = out.resolve("kubectl-nodegate-" + version + ".tar.gz");
        assertThat(platform.get("uri").asString())
                .isEqualTo("https://releases.example.com/nodegate/" + archive.getFileName());
        assertThat(platform.get("sha256").asString()).isEqualTo(sha256(archive));
        assertThat(Files.readString(out.resolve("nodegate.yaml"))).doesNotContain("RELEASE_").doesNotContain("UNFINISHED");

        // the archive holds exactly what the manifest's files name, bin among them
        Result list = run(dir, Map.of(), "tar", "tzf", archive.toString());
        List<String> entries = list.output.lines().toList();
        List<String> from = new ArrayList<>();
        platform.get("files").forEach(f -> from.add(f.get("from").asString()));
        assertThat(entries).containsExactlyInAnyOrderElementsOf(from).contains(platform.get("bin").asString());

        // reproducible: the same inputs give the same sha256
        Path again = dir.resolve("again");
        assertThat(run(dir, Map.of(), "bash", "deploy/krew/release.sh", "https://releases.example.com/nodegate",
                "https://example.com/nodegate", again.toString(), jar.toString()).exit).isZero();
        assertThat(sha256(again.resolve(archive.getFileName()))).isEqualTo(sha256(archive));

        // an http URL is refused: krew downloads over https
        Result http = run(dir, Map.of(), "bash", "deploy/krew/release.sh", "http://releases.example.com", "https://e.com",
                dir.resolve("x").toString(), jar.toString());
        assertThat(http.exit).isEqualTo(2);
        assertThat(http.output).contains("not an https:// URL");
    }

    /** What krew does on install: unpack into its store and link bin into ~/.krew/bin; the link must find the jar. */
    @Test
    void theLauncherFindsItsJarThroughKrewsLink(@TempDir Path dir) throws Exception {
        Path store = Files.createDirectories(dir.resolve("store/nodegate/v0.1.0"));
        Files.copy(Path.of("deploy/krew/kubectl-nodegate"), store.resolve("kubectl-nodegate"));
        Files.setPosixFilePermissions(store.resolve("kubectl-nodegate"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("kubectl-nodegate"), store.resolve("kubectl-nodegate"));
        // a java that prints what it was asked to run
        Path fakeJava = Files.createDirectories(dir.resolve("jdk/bin")).resolve("java");
        Files.writeString(fakeJava, "#!/bin/sh\necho \"java $*\"\n");
        Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwxr-xr-x"));

        Result run = run(dir, Map.of("JAVA_HOME", dir.resolve("jdk").toString()),
                bin.resolve("kubectl-nodegate").toString(), "audit", "--context", "prod a");
        assertThat(run.exit).as(run.output).isZero();
        assertThat(run.output.strip()).endsWith("-jar " + store.toRealPath().resolve("nodegate.jar")
                + " audit --context prod a").contains("-XX:+UseSerialGC");

        // no Java anywhere: only the tools the script itself uses are on the PATH
        Path tools = Files.createDirectories(dir.resolve("tools"));
        for (String tool : List.of("dirname", "readlink")) {
            Files.createSymbolicLink(tools.resolve(tool), Path.of(io.nodegate.testing.EtcdCluster.findOnPath(tool)));
        }
        Result noJava = run(dir, Map.of("JAVA_HOME", "", "PATH", tools.toString()), "/bin/sh",
                bin.resolve("kubectl-nodegate").toString(), "audit");
        assertThat(noJava.exit).isEqualTo(2);
        assertThat(noJava.output).contains("Java 17");
    }

    /**
     * kubectl (1.26+) completes a plugin's words by running kubectl_complete-PLUGIN from the PATH with the words
     * after `kubectl nodegate` and the one being completed, and reads cobra's answer back: the script hands them,
     * as they are, to `nodegate __complete` through the plugin kubectl itself would run.
     */
    @Test
    void kubectlsPluginCompletionReachesNodegatesCompleter(@TempDir Path dir) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("kubectl_complete-nodegate"),
                Path.of("deploy/krew/kubectl_complete-nodegate").toAbsolutePath());
        // a plugin that prints each argument it was given on its own line, in brackets
        Path plugin = Files.writeString(bin.resolve("kubectl-nodegate"),
                "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n");
        Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwxr-xr-x"));
        Result run = run(dir, Map.of("PATH", bin + ":/usr/bin:/bin"),
                bin.resolve("kubectl_complete-nodegate").toString(), "gate",
                "--context", "prod a$(x)", "");
        assertThat(run.exit).as(run.output).isZero();
        assertThat(run.output.lines()).containsExactly("[__complete]", "[--]", "[gate]", "[--context]",
                "[prod a$(x)]", "[]");
        assertThat(Files.isExecutable(Path.of("deploy/krew/kubectl_complete-nodegate"))).isTrue();
    }

    // ---- krew's validation, as in pkg/index/validation/validate.go --------------------------------------------

    static List<String> krewProblems(JsonNode p, String fileName) {
        List<String> problems = new ArrayList<>();
        if (!"krew.googlecontainertools.github.com/v1alpha2".equals(text(p, "apiVersion"))) {
            problems.add("apiVersion " + text(p, "apiVersion"));
        }
        if (!"Plugin".equals(text(p, "kind"))) {
            problems.add("kind " + text(p, "kind"));
        }
        String name = p.path("metadata").path("name").asString("");
        if (!name.matches("[\\w-]+") || !name.equals(fileName)) {
            problems.add("metadata.name " + name);
        }
        JsonNode spec = p.path("spec");
        if (text(spec, "shortDescription").isBlank()) {
            problems.add("spec.shortDescription empty");
        }
        if (!VERSION.matcher(text(spec, "version")).matches()) {
            problems.add("spec.version " + text(spec, "version") + " is not semver");
        }
        JsonNode platforms = spec.path("platforms");
        if (!platforms.isArray() || platforms.isEmpty()) {
            problems.add("no platforms");
        }
        for (int i = 0; i < platforms.size(); i++) {
            JsonNode pl = platforms.get(i);
            String where = "platform " + i + ": ";
            if (!text(pl, "uri").startsWith("https://")) {
                problems.add(where + "uri " + text(pl, "uri") + " is not https");
            }
            if (!SHA256.matcher(text(pl, "sha256")).matches()) {
                problems.add(where + "sha256 " + text(pl, "sha256") + " is not 64 hex digits");
            }
            if (text(pl, "bin").isBlank()) {
                problems.add(where + "no bin");
            }
            if (!pl.path("files").isArray() || pl.path("files").isEmpty()) {
                problems.add(where + "no files");
            }
            JsonNode sel = pl.path("selector");
            List<String> keys = new ArrayList<>();
            sel.path("matchLabels").properties().forEach(e -> keys.add(e.getKey()));
            sel.path("matchExpressions").forEach(e -> keys.add(text(e, "key")));
            if (keys.isEmpty() || !keys.stream().allMatch(k -> k.equals("os") || k.equals("arch"))) {
                problems.add(where + "selector keys " + keys);
            }
        }
        return problems;
    }

    private static String text(JsonNode node, String field) {
        return node.path(field).asString("");
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private record Result(int exit, String output) {
    }

    private static Result run(Path dir, Map<String, String> env, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(Path.of("").toAbsolutePath().toFile())
                .redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        return new Result(p.exitValue(), out);
    }
}
