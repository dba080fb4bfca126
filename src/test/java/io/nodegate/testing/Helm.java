package io.nodegate.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Helm, for rendering deploy/fleet's chart as Rancher Fleet renders it (Fleet's bundles are Helm charts underneath).
 * Debian has no Helm package; {@code bin/helm build} builds it from the module helm.sh/helm/v3 at the version pinned
 * in tools/helm/go.mod into a cache (bin/test does it before Maven runs, so here it is found built). Without Go the
 * calling test skips, and fails under CI=true.
 */
public final class Helm {

    private static String binary;

    private Helm() {
    }

    /** The helm binary's path, built into the cache on first use. */
    public static synchronized String require() {
        if (binary != null) {
            return binary;
        }
        boolean ci = "true".equalsIgnoreCase(System.getenv("CI"));
        if (EtcdCluster.findOnPath("go") == null) {
            if (ci) {
                fail("Go is required in CI: bin/helm builds helm from helm.sh/helm/v3 with it");
            }
            Assumptions.assumeTrue(false, "Go not on PATH: skipping the Helm rendering tests (bin/helm builds helm)");
        }
        try {
            Path log = Files.createTempFile("nodegate-helm-build", ".log");
            Process p = new ProcessBuilder(Path.of("bin/helm").toAbsolutePath().toString(), "build")
                    .redirectError(log.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(40, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                fail("bin/helm build did not finish in 40 minutes");
            }
            String err = Files.readString(log);
            Files.deleteIfExists(log);
            if (p.exitValue() != 0 || !Files.isExecutable(Path.of(out))) {
                fail("bin/helm build failed (exit " + p.exitValue() + "):\n" + err);
            }
            binary = out;
            return binary;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
