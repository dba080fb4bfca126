package io.nodegate.launcher;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.nodegate.cli.Nodegate;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.ReadKind;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The launcher's training run for the class-data archive (bin/nodegate writes {@code target/nodegate.jsa} from
 * the classes this run loads). Users mostly run nodegate against a live cluster, so training on an offline
 * audit alone left the live path (the fabric8 client, the JDK HTTP client, list parsing, the lifecycle's reads)
 * outside the archive: about 2,600 classes loaded from the jar on every live run. This run exercises the paths
 * users run, in one JVM and without a cluster:
 * <ol>
 *   <li>a live {@code audit -o json} and a table audit against a loopback HTTP server that serves a saved
 *       collection the way kube-apiserver serves its lists;</li>
 *   <li>{@code baseline save} and {@code gate} against the same server (they end INVALID or HOLD on this data,
 *       which is fine: what matters is which classes they load);</li>
 *   <li>an offline {@code audit -f DIR}.</li>
 * </ol>
 * Every command's output is discarded and its exit code ignored; nothing here is a test of nodegate.
 *
 * <p>Usage (by bin/nodegate only): {@code java -XX:ArchiveClassesAtExit=F -cp nodegate.jar
 * io.nodegate.launcher.TrainingRun COLLECTION_DIR}
 *
 * <p>For Java 25's ahead-of-time cache the launcher trains on one real command instead: {@code TrainingRun --serve
 * COLLECTION_DIR KUBECONFIG SECONDS} only serves the collection (and writes a kubeconfig for it once it listens,
 * then stops by itself after SECONDS at most), while another JVM records the cache from {@code audit --kubeconfig
 * KUBECONFIG -o json}. A JDK 25 loads every class of the cache when it starts, so a cache that also holds this
 * class's server, the lifecycle commands and the offline path cost the 7-node live audit 1.18x the CPU of Java 17's
 * archive; trained on the audit alone, 0.87x the CPU of that full cache (bench/RESULTS.md, "Start-up, JDK 25").
 */
public final class TrainingRun {

    private static final Pattern NAMESPACE_GET = Pattern.compile("/api/v1/namespaces/([^/]+)");

    private TrainingRun() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 4 && args[0].equals("--serve")) {
            serve(Path.of(args[1]), Path.of(args[2]), Long.parseLong(args[3]));
            return;
        }
        if (args.length != 1) {
            System.err.println("usage: TrainingRun COLLECTION_DIR (a directory written by `nodegate collect`)");
            System.exit(2);
        }
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        boolean show = Boolean.getBoolean("nodegate.training.show"); // -Dnodegate.training.show=true to debug it
        try (PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8)) {
            if (!show) {
                System.setOut(discard);
                System.setErr(discard);
            }
            Map<String, Integer> exits = run(Path.of(args[0]));
            if (show) {
                realErr.println("training run exit codes: " + exits);
            }
        } finally {
            System.setOut(realOut);
            System.setErr(realErr);
        }
    }

    /**
     * Runs the training commands against a loopback server that serves {@code collection}.
     *
     * @return each step's name → the exit code nodegate gave it, in run order
     */
    static Map<String, Integer> run(Path collection) throws IOException {
        Map<String, byte[]> lists = listsByPath(collection);
        List<String> nodes = nodeNames(lists);
        if (!nodes.isEmpty()) {
            // baseline save needs the control node's pods; a collection rarely holds pods, so give it one
            lists.putIfAbsent("/api/v1/pods", ("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
                    + "{\"resourceVersion\":\"1\"},"
                    + "\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"training\","
                    + "\"namespace\":\"kube-system\",\"uid\":\"00000000-0000-0000-0000-000000000001\"},"
                    + "\"spec\":{\"nodeName\":\"" + nodes.get(0) + "\"},\"status\":{\"phase\":\"Running\"}}]}")
                    .getBytes(StandardCharsets.UTF_8));
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> answer(exchange, lists));
        server.start();
        Path work = Files.createTempDirectory("nodegate-training");
        Map<String, Integer> exits = new LinkedHashMap<>();
        try {
            Path kubeconfig = writeKubeconfig(work, "http://127.0.0.1:" + server.getAddress().getPort());
            String kc = kubeconfig.toString();
            exits.put("live audit -o json", Nodegate.execute("audit", "--kubeconfig", kc, "-o", "json"));
            exits.put("live audit", Nodegate.execute("audit", "--kubeconfig", kc));
            if (nodes.size() >= 2) {
                String control = nodes.get(0);
                String target = nodes.get(nodes.size() - 1);
                Path baseline = work.resolve("baseline.json");
                exits.put("baseline save", Nodegate.execute("baseline", "save", "--kubeconfig", kc, "--targets",
                        target, "--control", control, "--out", baseline.toString(), "--evidence-dir",
                        work.resolve("evidence").toString()));
                exits.put("gate", Nodegate.execute("gate", target, "--kubeconfig", kc, "--baseline",
                        baseline.toString(), "--removed-at", "2026-01-01T00:00:00Z"));
            }
            exits.put("offline audit -o json", Nodegate.execute("audit", "-f", collection.toString(), "-o", "json"));
            exits.put("offline audit", Nodegate.execute("audit", "-f", collection.toString()));
        } finally {
            server.stop(0);
            deleteTree(work);
        }
        return exits;
    }

    /** Serves {@code collection} on loopback for at most {@code seconds}; the kubeconfig appears once it listens. */
    static void serve(Path collection, Path kubeconfig, long seconds) throws IOException, InterruptedException {
        Map<String, byte[]> lists = listsByPath(collection);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> answer(exchange, lists));
        server.start();
        // written beside its final name, then renamed: the launcher waits for the file and must never read half of it
        // (the launcher ends this JVM with a signal, which skips finally blocks: nothing may be left to clean up then)
        try {
            Path work = Files.createTempDirectory(kubeconfig.toAbsolutePath().getParent(), "nodegate-training");
            try {
                Path written = writeKubeconfig(work, "http://127.0.0.1:" + server.getAddress().getPort());
                Files.move(written, kubeconfig, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } finally {
                deleteTree(work);
            }
            Thread.sleep(seconds * 1000);
        } finally {
            server.stop(0);
        }
    }

    /** API path of each kind's LIST (as fabric8 asks for it) → the collection file that holds its objects. */
    private static Map<String, byte[]> listsByPath(Path collection) throws IOException {
        Map<String, byte[]> byPath = new HashMap<>();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            Path file = collection.resolve(kind.dumpFile());
            if (Files.isRegularFile(file)) {
                byPath.put(listPath(kind), asListAnswer(kind, Files.readAllBytes(file)));
            }
        }
        Path collected = collection.resolve("collected.json");
        if (Files.isRegularFile(collected)) {
            byPath.put("/version", versionBody(Files.readString(collected)));
        }
        return byPath;
    }

    /**
     * A collection file as kube-apiserver answers the LIST it came from: the kind's list kind in its group version,
     * with a resourceVersion. A dump says "List" and has none, as kubectl writes it; live, that is a broken answer.
     */
    private static byte[] asListAnswer(ReadKind<?, ?> kind, byte[] dump) {
        tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
        if (!(json.readTree(dump) instanceof tools.jackson.databind.node.ObjectNode list)) {
            return dump;
        }
        String group = HasMetadata.getGroup(kind.type());
        list.put("kind", kind.kind() + "List");
        list.put("apiVersion", (group == null || group.isEmpty() ? "" : group + "/") + HasMetadata.getVersion(kind.type()));
        tools.jackson.databind.node.ObjectNode meta = list.get("metadata") instanceof tools.jackson.databind.node.ObjectNode m
                ? m : list.putObject("metadata");
        meta.put("resourceVersion", "1");
        return json.writeValueAsBytes(list);
    }

    private static String listPath(ReadKind<?, ?> kind) {
        Class<? extends HasMetadata> type = kind.type();
        String group = HasMetadata.getGroup(type);
        String prefix = group == null || group.isEmpty() ? "/api/" + HasMetadata.getVersion(type)
                : "/apis/" + group + "/" + HasMetadata.getVersion(type);
        String namespace = kind.namespace() == null ? "" : "/namespaces/" + kind.namespace();
        return prefix + namespace + "/" + HasMetadata.getPlural(type);
    }

    private static byte[] versionBody(String collectedJson) {
        Matcher m = Pattern.compile("\"serverVersion\"\\s*:\\s*\"([^\"]+)\"").matcher(collectedJson);
        String git = m.find() ? m.group(1) : "v1.34.1+rke2r1";
        return ("{\"major\":\"1\",\"minor\":\"34\",\"gitVersion\":\"" + git + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    /** Node names from their kubernetes.io/hostname labels, in file order (a training run needs no more rigour). */
    private static List<String> nodeNames(Map<String, byte[]> lists) {
        byte[] nodes = lists.get("/api/v1/nodes");
        List<String> names = new ArrayList<>();
        if (nodes != null) {
            Matcher m = Pattern.compile("\"kubernetes.io/hostname\"\\s*:\\s*\"([^\"]+)\"")
                    .matcher(new String(nodes, StandardCharsets.UTF_8));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    private static void answer(HttpExchange exchange, Map<String, byte[]> lists) throws IOException {
        String path = exchange.getRequestURI().getPath();
        byte[] body = lists.get(path);
        int status = 200;
        if (body == null) {
            Matcher ns = NAMESPACE_GET.matcher(path);
            if (ns.matches() && lists.keySet().stream().anyMatch(p -> p.contains("/namespaces/" + ns.group(1) + "/"))) {
                body = ("{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" + ns.group(1)
                        + "\",\"uid\":\"training-" + ns.group(1) + "\"}}").getBytes(StandardCharsets.UTF_8);
            } else {
                status = 404;
                body = ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\","
                        + "\"code\":404,\"message\":\"" + path + " not found\"}").getBytes(StandardCharsets.UTF_8);
            }
        }
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static Path writeKubeconfig(Path dir, String server) throws IOException {
        String yaml = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: training
                  cluster:
                    server: %s
                contexts:
                - name: training
                  context:
                    cluster: training
                    user: training
                current-context: training
                users:
                - name: training
                  user:
                    token: training-only
                """.formatted(server);
        Path file = dir.resolve("kubeconfig");
        Files.writeString(file, yaml);
        return file;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
