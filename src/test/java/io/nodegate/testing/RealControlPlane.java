package io.nodegate.testing;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * A real control plane for the tests: etcd, kube-apiserver and kube-controller-manager built from the release
 * modules pinned in lab/go.mod, with simulated kubelets that talk as their nodes, started by {@code bin/lab up} (see
 * docs/lab.md). One lab serves every test class of a run: it is started by the first class that asks for it and
 * stopped ({@code bin/lab down}) when the whole run ends. Classes that change shared state (policies, CRDs) clean
 * up after themselves or use their own objects.
 *
 * <p>Without Go (or when the components cannot be built) the tests that need it skip, and fail instead under
 * CI=true, like the etcd tests.
 *
 * <p>Use: {@code @ExtendWith(RealControlPlane.Resolver.class)} and a {@code RealControlPlane} parameter on a
 * {@code @BeforeAll} method.
 */
public final class RealControlPlane implements ExtensionContext.Store.CloseableResource, AutoCloseable {

    /** Nodes of the shared lab: 1 server, 6 agents (the batch stop takes 4 of them). */
    public static final int NODES = 7;
    public static final String NAME = "t";

    private final Path repo;
    private final Path dir;

    private RealControlPlane(Path repo, Path dir) {
        this.repo = repo;
        this.dir = dir;
    }

    /** Resolves a {@link RealControlPlane} parameter, starting the run's lab on first use. */
    public static final class Resolver implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
            return p.getParameter().getType() == RealControlPlane.class;
        }

        @Override
        public Object resolveParameter(ParameterContext p, ExtensionContext c) {
            return c.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                    .getOrComputeIfAbsent(RealControlPlane.class, k -> start(), RealControlPlane.class);
        }
    }

    private static boolean ci() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    private static RealControlPlane start() {
        return start(NODES, 1, NAME);
    }

    /** A lab of its own (not the run's shared one), for tests of bin/lab itself; the caller closes it. */
    public static RealControlPlane start(int nodes, int servers, String name) {
        EtcdCluster.requireOnPath("go", "Go is required in CI: the real control plane is built from the release modules",
                "Go not on PATH: skipping the real control plane tests (docs/lab.md)");
        Kubectl.require();
        Path repo = Path.of("").toAbsolutePath();
        Result build = run(repo, Duration.ofMinutes(40), repo.resolve("bin/lab").toString(), "build");
        if (build.code != 0) {
            String why = "bin/lab build failed, so the real control plane tests cannot run:\n" + build.output;
            if (ci()) {
                fail(why);
            }
            Assumptions.assumeTrue(false, why);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("nodegate-lab-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Result up = run(repo, Duration.ofMinutes(3), repo.resolve("bin/lab").toString(), "up", dir.toString(),
                "--nodes", String.valueOf(nodes), "--servers", String.valueOf(servers), "--name", name);
        RealControlPlane lab = new RealControlPlane(repo, dir);
        if (up.code != 0) {
            // what up failed on is the news; a lab it never wrote has nothing to take down
            Result down = lab.down();
            if (down.code == 0) {
                lab.deleteDirectory();
            }
            fail("bin/lab up failed:\n" + up.output + (down.code == 0 ? "" : "\n(and bin/lab down: " + down.output
                    + ")"));
        }
        return lab;
    }

    @Override
    public void close() {
        down().requireOk("bin/lab down " + dir);
        deleteDirectory();
    }

    /** Once everything is stopped: the lab's directory (its keys among it) goes too. Kept when down failed. */
    public void deleteDirectory() {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Result down() {
        return run(repo, Duration.ofMinutes(1), repo.resolve("bin/lab").toString(), "down", dir.toString());
    }

    public Result status() {
        return run(repo, Duration.ofSeconds(30), repo.resolve("bin/lab").toString(), "status", dir.toString());
    }

    public Path dir() {
        return dir;
    }

    public Path kubeconfig() {
        return dir.resolve("kubeconfig");
    }

    /** Node name of the i-th agent (1-based). */
    public static String agent(int i) {
        return NAME + "-agent-" + i;
    }

    public static String server(int i) {
        return NAME + "-server-" + i;
    }

    /** A fabric8 client for a context of DIR/kubeconfig (admin, viewer). */
    public KubernetesClient client(String context) {
        try {
            String content = Files.readString(kubeconfig());
            Config config = Config.fromKubeconfig(context, content, kubeconfig().toString());
            config.setRequestTimeout(20_000);
            config.setConnectionTimeout(10_000);
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** kubectl against the lab as admin; the arguments are passed as they are (no shell). */
    public Result kubectl(String stdin, String... args) {
        List<String> cmd = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig().toString(),
                "--context", "admin", "--request-timeout=20s"));
        cmd.addAll(List.of(args));
        return runWithInput(repo, Duration.ofSeconds(60), stdin, cmd.toArray(String[]::new));
    }

    /** bin/lab with this lab's directory after the subcommand: {@code lab("kubelet", "stop", "t-agent-1")}. */
    public Result lab(String subcommand, String action, String... args) {
        List<String> cmd = new ArrayList<>(List.of(repo.resolve("bin/lab").toString(), subcommand, dir.toString(), action));
        cmd.addAll(List.of(args));
        return run(repo, Duration.ofSeconds(90), cmd.toArray(String[]::new));
    }

    /**
     * The path of one of Cluster API's CRDs ({@code machines}), taken by {@code bin/lab capi-crd} from the
     * sigs.k8s.io/cluster-api module at the release pinned there, through the Go module proxy (cached in Go's module
     * cache). Skips the caller when that fails, and fails under CI=true, as the lab's build does.
     */
    public Path capiCrd(String resource) {
        Result crd = run(repo, Duration.ofMinutes(10), repo.resolve("bin/lab").toString(), "capi-crd", resource);
        if (crd.code != 0) {
            String why = "bin/lab capi-crd " + resource + " failed:\n" + crd.output;
            if (ci()) {
                fail(why);
            }
            Assumptions.assumeTrue(false, why);
        }
        String[] lines = crd.output.strip().split("\n");
        return Path.of(lines[lines.length - 1]);
    }

    /** A simulated kubelet's log (what it was told by the apiserver). */
    public String kubeletLog(String host) {
        try {
            Path log = dir.resolve("logs/kubelet-" + host + ".log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public record Result(int code, String output) {
        public Result requireOk(String what) {
            if (code != 0) {
                fail(what + " failed (exit " + code + "):\n" + output);
            }
            return this;
        }
    }

    static Result run(Path cwd, Duration timeout, String... cmd) {
        return runWithInput(cwd, timeout, null, cmd);
    }

    /** Runs a command (no shell), stdout and stderr together, killed at the deadline. */
    static Result runWithInput(Path cwd, Duration timeout, String stdin, String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
            try (var in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                return new Result(-1, "timed out after " + timeout + ": " + String.join(" ", cmd) + "\n" + out.getNow(""));
            }
            return new Result(p.exitValue(), out.get(10, TimeUnit.SECONDS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(String.join(" ", cmd), e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
