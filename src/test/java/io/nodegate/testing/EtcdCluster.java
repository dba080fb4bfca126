package io.nodegate.testing;

import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.source.etcd.EtcdSource;
import io.nodegate.source.tls.PemTls;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Real etcd processes on loopback for tests: free ports, a temp data dir per member, waits until the cluster is in
 * the state the tests read (see {@link #awaitServing}), and kills everything on {@link #close()} (and from a shutdown
 * hook, in case a test run is aborted). Every wait is for a condition, bounded by a deadline that only a broken
 * etcd reaches; none is a pause for time.
 *
 * <p>Use {@link #requireEtcd()} first: without the etcd binary the test is skipped, except under CI=true,
 * where it fails ("etcd-server is required in CI").
 */
public final class EtcdCluster implements AutoCloseable {

    /**
     * TLS material for a cluster that demands client certificates: the CA, the members' serving pair, and a client
     * pair signed by the CA that this class reads the cluster with while it waits.
     */
    public record Tls(Path caCert, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {
    }

    /** How long a start-up condition may take before the etcd behind it counts as broken (a 2-core machine under load). */
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    /** One etcd process. */
    public final class Member {
        final String name;
        final int clientPort;
        final int peerPort;
        final int metricsPort;
        final Path dataDir;
        Process process;

        Member(String name, Path dataDir) {
            this(name, dataDir, ports.getAsInt());
        }

        Member(String name, Path dataDir, int clientPort) {
            this.name = name;
            this.clientPort = clientPort;
            this.peerPort = ports.getAsInt();
            this.metricsPort = ports.getAsInt();
            this.dataDir = dataDir;
        }

        public String name() {
            return name;
        }

        public int clientPort() {
            return clientPort;
        }

        public String clientUrl() {
            return scheme() + "://127.0.0.1:" + clientPort;
        }

        public String peerUrl() {
            return "http://127.0.0.1:" + peerPort;
        }

        public Path dataDir() {
            return dataDir;
        }

        public boolean running() {
            return process != null && process.isAlive();
        }

        /** A forked member shares the name and data dir, so the client port tells the logs apart. */
        Path log() {
            return root.resolve(name + "-" + clientPort + ".log");
        }
    }

    private static final List<EtcdCluster> LIVE = new ArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (LIVE) {
                new ArrayList<>(LIVE).forEach(EtcdCluster::close);
            }
        }, "etcd-cluster-cleanup"));
    }

    private final Path root;
    private final Tls tls;
    /** Where the ports of new members come from: free ones, in every test but the one of the retry itself. */
    private final IntSupplier ports;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final List<Member> extra = new ArrayList<>();

    private EtcdCluster(Path root, Tls tls, IntSupplier ports) {
        this.root = root;
        this.tls = tls;
        this.ports = ports;
    }

    /** Skips the calling test when etcd is not installed; fails instead under CI=true. */
    public static String requireEtcd() {
        return requireOnPath("etcd", "etcd-server is required in CI (apt-get install etcd-server)",
                "etcd not installed: skipping real-etcd tests");
    }

    /** The command's path; skips the calling test when it is missing, fails instead under CI=true. */
    public static String requireOnPath(String command, String ciFailure, String skipReason) {
        String binary = findOnPath(command);
        if (binary == null) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(ciFailure);
            }
            Assumptions.assumeTrue(false, skipReason);
        }
        return binary;
    }

    public static String findOnPath(String command) {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/bin" : path).split(File.pathSeparator)) {
            Path p = Path.of(dir, command);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    /** Starts a cluster of the given member names (one initial-cluster token each call) and waits until healthy. */
    public static EtcdCluster start(Tls tls, String... names) {
        return start(tls, 0, names);
    }

    /**
     * A one-member cluster whose client URL takes over {@code clientPort} (a stopped member's address), as a
     * server re-bootstrapped on the same host does.
     */
    public static EtcdCluster startAt(int clientPort, String name) {
        return start(null, clientPort, name);
    }

    /**
     * How many times a start is tried on fresh ports when etcd could not bind one of them. A port is picked free
     * here and bound later by etcd: another process (a parallel build, another test's server) can take it in
     * between, and etcd then exits with "address already in use". Only that failure is retried.
     */
    private static final int BIND_ATTEMPTS = 5;

    /** etcd exited because a port given to it was taken before it could bind it. */
    static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    private static EtcdCluster start(Tls tls, int firstClientPort, String... names) {
        return start(tls, firstClientPort, EtcdCluster::freePort, names);
    }

    /** A start whose member ports come from {@code ports} (the retry's own test hands it a taken one). */
    static EtcdCluster start(Tls tls, int firstClientPort, IntSupplier ports, String... names) {
        requireEtcd();
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(tls, firstClientPort, ports, names);
            } catch (PortTaken e) {
                if (attempt >= BIND_ATTEMPTS) {
                    throw new IllegalStateException("etcd could not bind its ports in " + attempt + " tries", e);
                }
            }
        }
    }

    private static EtcdCluster startOnce(Tls tls, int firstClientPort, IntSupplier ports, String... names) {
        Path root;
        try {
            root = Files.createTempDirectory("nodegate-etcd-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        EtcdCluster cluster = new EtcdCluster(root, tls, ports);
        synchronized (LIVE) {
            LIVE.add(cluster);
        }
        try {
            for (String name : names) {
                cluster.members.put(name, firstClientPort > 0 && cluster.members.isEmpty()
                        ? cluster.new Member(name, root.resolve(name), firstClientPort)
                        : cluster.new Member(name, root.resolve(name)));
            }
            StringBuilder initial = new StringBuilder();
            for (Member m : cluster.members.values()) {
                initial.append(initial.length() == 0 ? "" : ",").append(m.name).append('=').append(m.peerUrl());
            }
            String token = "nodegate-" + root.getFileName();
            for (Member m : cluster.members.values()) {
                cluster.launch(m, List.of("--initial-cluster", initial.toString(), "--initial-cluster-state", "new",
                        "--initial-cluster-token", token, "--initial-advertise-peer-urls", m.peerUrl()));
            }
            List<Member> all = List.copyOf(cluster.members.values());
            for (Member m : all) {
                cluster.awaitHealthy(m, all);
            }
            cluster.awaitServing(all);
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * The member ID in what `etcdctl member remove` printed. etcdctl writes {@code "Member %16x removed from cluster
     * %16x"} (etcdctl/ctlv3/command/printer_simple.go, MemberRemove): an ID of fewer than 16 hex digits is padded
     * with spaces, so a test parses the number instead of matching the text. Null when no such line is there.
     */
    public static Long removedMemberId(String etcdctlOutput) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Member\\s+([0-9a-f]+)\\s+removed")
                .matcher(etcdctlOutput);
        return m.find() ? Long.parseUnsignedLong(m.group(1), 16) : null;
    }

    public Member member(String name) {
        Member m = members.get(name);
        if (m == null) {
            throw new IllegalArgumentException("no member " + name);
        }
        return m;
    }

    public List<String> clientUrls() {
        return members.values().stream().map(Member::clientUrl).toList();
    }

    /** Stops a member (SIGKILL, as a crashed or powered-off host). Its data dir stays. */
    public void stop(String name) {
        kill(member(name));
    }

    /**
     * Restarts a stopped member from its own data dir with {@code --force-new-cluster} on NEW ports: it keeps
     * the cluster ID, drops every other member and elects itself. New ports keep it from talking to the
     * others, as if it were cut off. Returns the forked process.
     */
    public Member forceNewCluster(String name) {
        Member old = member(name);
        if (old.running()) {
            throw new IllegalStateException(name + " still runs");
        }
        for (int attempt = 1; ; attempt++) {
            Member fork = new Member(name, old.dataDir);
            extra.add(fork);
            try {
                // a second try on the same data dir is harmless: forcing a one-member cluster again gives the same
                launch(fork, List.of("--force-new-cluster", "--initial-advertise-peer-urls", fork.peerUrl()));
                awaitHealthy(fork, List.of(fork));
                awaitServing(List.of(fork));
                return fork;
            } catch (PortTaken e) {
                kill(fork);
                extra.remove(fork);
                if (attempt >= BIND_ATTEMPTS) {
                    throw new IllegalStateException("etcd could not bind its ports in " + attempt + " tries", e);
                }
            }
        }
    }

    /**
     * Waits until each member given answers the client API the way the tests read it (nodegate's own
     * {@link EtcdSource}): its status names a leader that is one of them, and its member list names each of them with
     * a client URL. /health alone is not enough: it is true once a member has a leader, while a member's name and
     * client URLs reach the member lists later (etcd publishes them through raft after it starts); a list read in
     * between shows the member nameless and without a client URL ("never started?").
     */
    void awaitServing(List<Member> expected) {
        Map<String, String> urls = new java.util.TreeMap<>();
        expected.forEach(m -> urls.put(m.name(), m.clientUrl()));
        awaitReports("members " + urls + " listed with their client URLs, one leader among them", expected, reports -> {
            Set<Long> ids = new HashSet<>();
            reports.forEach(r -> ids.add(r.status().memberId()));
            return reports.stream().allMatch(r -> ids.contains(r.status().leader())
                    && r.status().leader() == reports.get(0).status().leader()
                    && r.members().size() == urls.size()
                    && r.members().stream().allMatch(m -> urls.containsKey(m.name())
                    && m.clientUrls().contains(urls.get(m.name()))));
        });
    }

    /**
     * Waits until the named running members agree on a leader that is one of them: after a member is stopped, the
     * others notice only after an election timeout (longer on a loaded machine), and until then they may still
     * report the stopped one as leader, or none.
     */
    public void awaitLeaderAmong(String... names) {
        List<Member> running = java.util.Arrays.stream(names).map(this::member).toList();
        awaitReports("a leader among " + List.of(names), running, reports -> {
            Set<Long> ids = new HashSet<>();
            reports.forEach(r -> ids.add(r.status().memberId()));
            long leader = reports.get(0).status().leader();
            return ids.contains(leader) && reports.stream().allMatch(r -> r.status().leader() == leader);
        });
    }

    private void awaitReports(String what, List<Member> members, Predicate<List<EtcdEndpointReport>> ready) {
        EtcdSource reader = new EtcdSource(Duration.ofSeconds(2), tls == null ? null
                : PemTls.sslContext(tls.caCert(), tls.clientCert(), tls.clientKey()));
        List<URI> urls = members.stream().map(m -> URI.create(m.clientUrl())).toList();
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        List<EtcdEndpointReport> reports = List.of();
        while (System.nanoTime() < deadline) {
            members.forEach(EtcdCluster::failIfExited);
            reports = reader.read(urls);
            if (reports.stream().allMatch(EtcdEndpointReport::ok) && ready.test(reports)) {
                return;
            }
            pause();
        }
        throw new IllegalStateException("etcd: not " + what + " within " + DEADLINE.toSeconds() + " s: " + reports);
    }

    /** The poll interval of a wait for a condition. */
    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void launch(Member m, List<String> extraArgs) {
        List<String> cmd = new ArrayList<>(List.of(findOnPath("etcd"),
                "--name", m.name,
                "--data-dir", m.dataDir.toString(),
                "--listen-client-urls", m.clientUrl(),
                "--advertise-client-urls", m.clientUrl(),
                "--listen-peer-urls", m.peerUrl(),
                "--listen-metrics-urls", "http://127.0.0.1:" + m.metricsPort,
                "--heartbeat-interval", "50",
                "--election-timeout", "500",
                "--snapshot-count", "1000"));
        if (tls != null) {
            cmd.addAll(List.of("--client-cert-auth", "--trusted-ca-file", tls.caCert().toString(),
                    "--cert-file", tls.serverCert().toString(), "--key-file", tls.serverKey().toString()));
        }
        cmd.addAll(extraArgs);
        try {
            m.process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(m.log().toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start etcd", e);
        }
    }

    /**
     * Throws when {@code m} is no longer running: {@link PortTaken} when it exited because a port was taken (its
     * log says "address already in use"), so the start can be tried again on fresh ports.
     */
    private static void failIfExited(Member m) {
        if (m.running()) {
            return;
        }
        String tail = logTail(m);
        if (tail.contains("address already in use")) {
            throw new PortTaken("etcd " + m.name + " could not bind a port: " + tail);
        }
        throw new IllegalStateException("etcd " + m.name + " exited: " + tail);
    }

    /**
     * Waits for {@code m}'s /health, failing early when any of {@code started} exited (a member of a new cluster
     * that could not bind its ports leaves the others without a quorum until the deadline).
     */
    private void awaitHealthy(Member m, List<Member> started) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        URI health = URI.create("http://127.0.0.1:" + m.metricsPort + "/health");
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            started.forEach(EtcdCluster::failIfExited);
            try {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(1)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().contains("\"health\":\"true\"")) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            pause();
        }
        throw new IllegalStateException("etcd " + m.name + " not healthy within " + DEADLINE.toSeconds() + " s: "
                + logTail(m));
    }

    private static String logTail(Member m) {
        if (!Files.exists(m.log())) {
            return "(no log)";
        }
        try {
            List<String> lines = Files.readAllLines(m.log());
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    private String scheme() {
        return tls == null ? "http" : "https";
    }

    private static void kill(Member m) {
        if (m.process != null) {
            m.process.destroyForcibly();
            try {
                m.process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        members.values().forEach(EtcdCluster::kill);
        extra.forEach(EtcdCluster::kill);
        synchronized (LIVE) {
            LIVE.remove(this);
        }
        if (root != null && Files.exists(root)) {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // temp dir: best effort
            }
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
