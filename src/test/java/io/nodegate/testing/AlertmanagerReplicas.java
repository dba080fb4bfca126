package io.nodegate.testing;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Real Alertmanager replicas (Debian's prometheus-alertmanager, 0.25) on loopback, clustered over gossip as in
 * production: each with its own web and cluster port (free ports) and storage directory, peered with the others by
 * --cluster.peer. Everything waits for a condition (peers joined per GET /api/v2/status, a silence visible), never
 * for a fixed time; the processes are stopped on close. A fourth replica can be started that is not peered (a
 * replica outside the cluster), and all can be restarted without their data.
 */
public final class AlertmanagerReplicas implements AutoCloseable {

    /** The routing every replica loads: the seed's, group_by [alertname] with a 6 h repeat. */
    public static final String CONFIG = """
            route:
              receiver: gpu-team
              group_by: [alertname]
              group_wait: 1s
              group_interval: 5m
              repeat_interval: 6h
            receivers:
            - name: gpu-team
            """;

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final String binary;
    private final Path root;
    private final Path config;
    private final List<Replica> replicas = new ArrayList<>();
    /** Where the ports of new replicas come from: free ones, in every test but the one of the retry itself. */
    private final java.util.function.IntSupplier ports;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** One replica: its ports, its data, its process (null while stopped). */
    public static final class Replica {
        final String name;
        final int webPort;
        final int clusterPort;
        final Path storage;
        final List<Integer> peers;
        Process process;

        Replica(String name, int webPort, int clusterPort, Path storage, List<Integer> peers) {
            this.name = name;
            this.webPort = webPort;
            this.clusterPort = clusterPort;
            this.storage = storage;
            this.peers = peers;
        }

        public String url() {
            return "http://127.0.0.1:" + webPort;
        }
    }

    private AlertmanagerReplicas(String binary, Path root, java.util.function.IntSupplier ports) throws IOException {
        this.binary = binary;
        this.root = root;
        this.ports = ports;
        this.config = Files.writeString(Files.createDirectories(root).resolve("alertmanager.yml"), CONFIG);
    }

    /** The binary; skips the calling test when it is missing, fails instead under CI=true. */
    public static String require() {
        return EtcdCluster.requireOnPath("prometheus-alertmanager",
                "prometheus-alertmanager is required in CI (apt-get install prometheus-alertmanager; bin/test installs it)",
                "prometheus-alertmanager not installed: skipping real-Alertmanager tests (bin/test installs it)");
    }

    /**
     * How many times a start is tried on fresh ports when a replica could not bind one: ports are picked free here
     * and bound later by Alertmanager, and another process can take one in between ("address already in use").
     */
    private static final int BIND_ATTEMPTS = 5;

    /** A replica exited because a port given to it was taken before it could bind it. */
    static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    /** Starts {@code n} replicas peered with each other and waits until each sees all of them. */
    public static AlertmanagerReplicas start(Path root, int n) throws IOException {
        return start(root, n, AlertmanagerReplicas::freePort);
    }

    /** A start whose replica ports come from {@code portSource} (the retry's own test hands it a taken one). */
    static AlertmanagerReplicas start(Path root, int n, java.util.function.IntSupplier portSource) throws IOException {
        AlertmanagerReplicas c = new AlertmanagerReplicas(require(), root, portSource);
        for (int attempt = 1; ; attempt++) {
            List<int[]> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ports.add(new int[]{portSource.getAsInt(), portSource.getAsInt()});
            }
            for (int i = 0; i < n; i++) {
                List<Integer> peers = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    if (j != i) {
                        peers.add(ports.get(j)[1]);
                    }
                }
                c.replicas.add(new Replica("am-" + i, ports.get(i)[0], ports.get(i)[1],
                        Files.createDirectories(root.resolve("am-" + i)), peers));
            }
            c.replicas.forEach(c::launch);
            try {
                c.awaitPeered(c.replicas);
                return c;
            } catch (PortTaken e) {
                c.discard(List.copyOf(c.replicas));
                if (attempt >= BIND_ATTEMPTS) {
                    throw new IllegalStateException("Alertmanager could not bind its ports in " + attempt + " tries",
                            e);
                }
            }
        }
    }

    /** Starts one more replica that peers with nobody: a replica outside the cluster. */
    public Replica startUnpeered() throws IOException {
        for (int attempt = 1; ; attempt++) {
            Replica r = new Replica("am-" + replicas.size() + "-alone", ports.getAsInt(), ports.getAsInt(),
                    Files.createDirectories(root.resolve("am-" + replicas.size() + "-alone")), List.of());
            replicas.add(r);
            launch(r);
            try {
                awaitPeered(List.of(r));
                return r;
            } catch (PortTaken e) {
                discard(List.of(r));
                if (attempt >= BIND_ATTEMPTS) {
                    throw new IllegalStateException("Alertmanager could not bind its ports in " + attempt + " tries",
                            e);
                }
            }
        }
    }

    /** Stops replicas that failed to start and forgets them, their data and their logs, for a fresh try. */
    private void discard(List<Replica> failed) throws IOException {
        for (Replica r : failed) {
            stop(r);
            replicas.remove(r);
            deleteTree(r.storage);
            Files.deleteIfExists(root.resolve(r.name + ".log"));
        }
    }

    public List<Replica> replicas() {
        return List.copyOf(replicas);
    }

    public List<String> urls() {
        return replicas.stream().map(Replica::url).toList();
    }

    /** Stops every replica, deletes their data, starts them again on the same ports, and waits until peered. */
    public void restartAllWithoutData() throws IOException {
        replicas.forEach(AlertmanagerReplicas::stop);
        for (Replica r : replicas) {
            deleteTree(r.storage);
            Files.createDirectories(r.storage);
        }
        replicas.forEach(this::launch);
        awaitPeered(replicas);
    }

    private void launch(Replica r) {
        List<String> cmd = new ArrayList<>(List.of(binary, "--config.file=" + config, "--storage.path=" + r.storage,
                "--web.listen-address=127.0.0.1:" + r.webPort, "--cluster.listen-address=127.0.0.1:" + r.clusterPort,
                "--cluster.advertise-address=127.0.0.1:" + r.clusterPort,
                "--cluster.gossip-interval=50ms", "--cluster.pushpull-interval=1s", "--cluster.reconnect-interval=1s",
                "--log.level=warn"));
        r.peers.forEach(p -> cmd.add("--cluster.peer=127.0.0.1:" + p));
        try {
            r.process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve(r.name + ".log").toFile())).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + binary + ": " + e.getMessage(), e);
        }
    }

    /** Waits until each replica answers and its cluster holds all of {@code group} (itself included). */
    private void awaitPeered(List<Replica> group) {
        for (Replica r : group) {
            await(r.name + " answers and sees its " + group.size() + " cluster member(s) (" + log(r) + ")", () -> {
                group.forEach(this::failIfExited);
                JsonNode status = get(r, "/api/v2/status");
                return status != null && status.path("cluster").path("peers").size() == group.size();
            });
        }
    }

    /**
     * Throws when {@code r} is no longer running: {@link PortTaken} when its log says a port was taken, so the
     * start is tried again on fresh ports; any other exit fails at once instead of waiting out the deadline.
     */
    private void failIfExited(Replica r) {
        Process p = r.process;
        if (p == null || p.isAlive()) {
            return;
        }
        String logText;
        try {
            logText = Files.readString(root.resolve(r.name + ".log"));
        } catch (IOException e) {
            logText = "(log unreadable: " + e.getMessage() + ")";
        }
        if (logText.contains("address already in use")) {
            throw new PortTaken(r.name + " could not bind a port: " + logText);
        }
        throw new IllegalStateException(r.name + " exited (" + p.exitValue() + "): " + logText);
    }

    /** GET of a replica's API, or null when it does not answer (yet). */
    public JsonNode get(Replica r, String path) {
        try {
            HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(r.url() + path))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            return resp.statusCode() == 200 ? JSON.readTree(resp.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Sends a request and returns the status code, failing the test on a transport error. */
    public int send(Replica r, String method, String path, String json) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(r.url() + path)).timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "application/json");
            b = json == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                    : b.method(method, HttpRequest.BodyPublishers.ofString(json));
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + r.url() + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** POST /api/v2/alerts to every replica (each Prometheus sends to each: alerts are not gossiped). */
    public void postAlertsToEach(String alertsJson) {
        for (Replica r : replicas) {
            int code = send(r, "POST", "/api/v2/alerts", alertsJson);
            if (code != 200) {
                throw new IllegalStateException("POST alerts to " + r.url() + " answered " + code);
            }
        }
    }

    /** Waits for a condition, polling; fails naming it after a generous bound (never a fixed sleep to pass). */
    public static void await(String what, BooleanSupplier condition) {
        Instant deadline = Instant.now().plus(WAIT);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what);
            }
        }
    }

    private String log(Replica r) {
        return "log " + root.resolve(r.name + ".log");
    }

    private static void stop(Replica r) {
        Process p = r.process;
        if (p == null) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        r.process = null;
    }

    @Override
    public void close() {
        replicas.forEach(AlertmanagerReplicas::stop);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
