package io.nodegate.source.kube;

import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read-only live commands never build a fabric8 client (its start-up cost 0.5-0.9 s of every run): played for real,
 * each command in its own JVM through the kubeconfig path, with the JVM logging every class it loads. A write
 * (gate --annotate) is the control: there the client must appear, so the marker classes are the right ones.
 */
class ReadsBuildNoFabricClientTest {

    /** Loaded by any fabric8 client, whatever builds it. */
    private static final List<String> CLIENT_CLASSES = List.of(
            "io.fabric8.kubernetes.client.impl.KubernetesClientImpl ",
            "io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl ");

    @TempDir
    Path tmp;

    @Test
    void liveReadsLoadNoClientAndAnAnnotatingGateDoes() throws Exception {
        try (ApiTestServer api = ApiTestServer.start()) {
            SeedCluster.populate(api);
            // these runs use the real clock, on which the story's reply (an hour after the baseline) lies ahead, and
            // a removal cannot be reported before it happens: any past time will do (the verdict is not judged here)
            String pastReply = java.time.Instant.now().minusSeconds(60).toString();
            Path kc = api.writeKubeconfig(tmp.resolve("kubeconfig"));
            Path evidence = tmp.resolve("evidence");
            Path baseline = evidence.resolve("baseline.json");

            Run b = run("baseline", "save", "--kubeconfig", kc.toString(), "--targets", "gpu-a10,gpu-a11",
                    "--control", "keep-1", "--evidence-dir", evidence.toString(), "--out", baseline.toString());
            assertThat(b.exit).as(b.output).isZero();
            assertThat(b.clientClasses()).as("baseline save").isEmpty();

            Run audit = run("audit", "--kubeconfig", kc.toString(), "-o", "json");
            assertThat(audit.exit).as(audit.output).isIn(0, 1);
            assertThat(audit.clientClasses()).as("audit").isEmpty();

            Run gate = run("gate", "gpu-a11", "--kubeconfig", kc.toString(), "--baseline", baseline.toString(),
                    "--removed-at", pastReply);
            assertThat(gate.exit).as(gate.output).isIn(0, 4, 5);
            assertThat(gate.clientClasses()).as("gate without --annotate").isEmpty();

            Run verify = run("verify-gone", "--kubeconfig", kc.toString(), "--baseline", baseline.toString());
            assertThat(verify.exit).as(verify.output).isIn(0, 4, 5);
            assertThat(verify.clientClasses()).as("verify-gone").isEmpty();

            Run annotate = run("gate", "gpu-a11", "--kubeconfig", kc.toString(), "--baseline", baseline.toString(),
                    "--removed-at", pastReply, "--annotate");
            assertThat(annotate.exit).as(annotate.output).isIn(0, 4, 5);
            assertThat(annotate.output).contains("annotated");
            assertThat(annotate.clientClasses()).as("gate --annotate writes through fabric8").isNotEmpty();
        }
    }

    private record Run(int exit, String output, String classes) {
        List<String> clientClasses() {
            return CLIENT_CLASSES.stream().filter(classes::contains).toList();
        }
    }

    private int runs;

    private Run run(String... args) throws IOException, InterruptedException {
        Path log = tmp.resolve("classes-" + (++runs) + ".txt");
        Path out = tmp.resolve("out-" + runs + ".txt");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xlog:class+load:file=" + log,
                "-Duser.home=" + tmp.resolve("home"),
                "-cp", System.getProperty("java.class.path"), "io.nodegate.cli.Nodegate"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().remove("KUBECONFIG");
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(out), Files.readString(log));
    }
}
