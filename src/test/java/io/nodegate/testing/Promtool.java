package io.nodegate.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs Prometheus' real promtool (Debian package `prometheus`), the tool that checks and unit-tests rule files. */
public final class Promtool {

    private Promtool() {
    }

    /** promtool's path; skips the calling test when it is missing, fails instead under CI=true (like etcd). */
    public static String require() {
        return EtcdCluster.requireOnPath("promtool",
                "promtool is required in CI (apt-get install prometheus; bin/test installs it)",
                "promtool not installed: skipping promtool tests (bin/test installs Debian's prometheus)");
    }

    public record Result(int exitCode, String output) {
    }

    /** Runs promtool with the arguments in the given directory; stdout and stderr together. */
    public static Result run(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(require());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("promtool " + String.join(" ", args) + " did not finish in 5 minutes");
        }
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
