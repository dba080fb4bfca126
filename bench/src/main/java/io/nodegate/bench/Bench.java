package io.nodegate.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Entry point of the benchmark jar.
 * <pre>
 *   serve --nodes N [--port P] [--port-file F] [--max-seconds S] [--renew-every 10s]
 *         [--flip-ready-every 5s] [--node-status-every 300s]
 *                                         synthetic API server on 127.0.0.1; with --renew-every, Leases renew
 *                                         and open HTTP watches get the MODIFIED events; Node Ready flips and
 *                                         status posts with the other two (FakeApiServer#changeNodes)
 *   sample --metrics URL --server URL --seconds S [--every 250ms]
 *                                         scrapes /metrics and times each event to the metric that shows it
 *                                         (MetricLatency)
 *   watch --server URL [--listen-port P] [--interval 15s] [--debounce 1s]
 *                                         nodegate watch's service against URL (on nodegate.jar's classpath)
 *   floor --server URL [--limit L]        the LISTs nodegate needs, paginated, bodies read but not parsed
 *   per-node-get --server URL [--max M]   the seed's way: list node names, then one GET per node
 *   dump --nodes N --out F [--now T]      the synthetic cluster as one kubectl-style JSON List (what
 *                                         `kubectl get nodes,leases,secrets,... -A -o json` writes: keys sorted,
 *                                         items before kind), pods left out; prints the --now to audit it with
 * </pre>
 */
public final class Bench {

    private static final Pattern CONTINUE = Pattern.compile("\"continue\":\"([^\"]*)\"");
    private static final Pattern NAME = Pattern.compile("\"metadata\":\\{\"name\":\"([^\"]+)\"");

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
        }
        switch (args[0]) {
            case "serve" -> serve(args);
            case "floor" -> floor(args);
            case "per-node-get" -> perNodeGet(args);
            case "dump" -> dump(args);
            case "bmc-fleet" -> FakeBmcFleet.run(Integer.parseInt(opt(args, "--bmcs", "200")),
                    Integer.parseInt(opt(args, "--delay-ms", "200")), java.nio.file.Path.of(opt(args, "--keystore", null)),
                    opt(args, "--password", null), java.nio.file.Path.of(opt(args, "--dir", null)),
                    Integer.parseInt(opt(args, "--max-seconds", "900")));
            case "watch" -> WatchProcess.run(optional(args, "--server"), optional(args, "--kubeconfig"),
                    Integer.parseInt(opt(args, "--listen-port", "0")), opt(args, "--interval", "15s"),
                    seconds(opt(args, "--debounce", "1s")));
            case "sample" -> MetricLatency.run(opt(args, "--metrics", null), opt(args, "--server", null),
                    seconds(opt(args, "--seconds", null)), seconds(opt(args, "--every", "250ms")));
            default -> usage();
        }
    }

    private static void usage() {
        System.err.println("usage: serve --nodes N [--light] [--port P] [--port-file F] [--max-seconds S]"
                + " | dump --nodes N --out F [--now T] [--light] | floor --server URL [--limit L] | per-node-get --server URL [--max M]");
        System.exit(2);
    }

    /** A flag without a value: --light serves the earlier, lighter Nodes instead of the field-sized ones. */
    private static boolean flag(String[] args, String name) {
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The option's value, or null when it is not given. */
    private static String optional(String[] args, String name) {
        for (int i = 1; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return null;
    }

    private static String opt(String[] args, String name, String dflt) {
        for (int i = 1; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        if (dflt == null) {
            System.err.println("missing " + name);
            System.exit(2);
        }
        return dflt;
    }

    /**
     * Writes the cluster every audited LIST would return as one kubectl List file, streamed (the file can be
     * hundreds of MB). Each item already carries its kind and apiVersion, as kubectl's do.
     */
    private static void dump(String[] args) throws IOException {
        int nodes = Integer.parseInt(opt(args, "--nodes", null));
        if (nodes > 20_000) {
            throw new IllegalArgumentException("--nodes is capped at 20000 to keep the benchmark bounded");
        }
        Instant now = Instant.parse(opt(args, "--now", "2026-10-19T06:10:00Z"));
        Path out = Path.of(opt(args, "--out", null));
        SyntheticCluster cluster = new SyntheticCluster(nodes, now, flag(args, "--light"));
        try (var file = new java.io.BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            file.write("{\"apiVersion\":\"v1\",\"items\":[".getBytes(StandardCharsets.UTF_8));
            boolean first = true;
            for (var e : cluster.collections.entrySet()) {
                if (e.getKey().equals("pods")) {
                    continue;
                }
                Collection c = e.getValue();
                for (int i = 0; i < c.size(); i++) {
                    if (!first) {
                        file.write(',');
                    }
                    first = false;
                    file.write(c.get(i).json());
                }
            }
            file.write("],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n".getBytes(StandardCharsets.UTF_8));
        }
        System.out.println(now);
    }

    private static void serve(String[] args) throws Exception {
        int nodes = Integer.parseInt(opt(args, "--nodes", null));
        if (nodes > 20_000) {
            throw new IllegalArgumentException("--nodes is capped at 20000 to keep the benchmark bounded");
        }
        int maxSeconds = Integer.parseInt(opt(args, "--max-seconds", "900"));
        long t0 = System.nanoTime();
        SyntheticCluster cluster = new SyntheticCluster(nodes, Instant.now(), flag(args, "--light"));
        FakeApiServer server = new FakeApiServer(cluster);
        String renewEvery = opt(args, "--renew-every", "");
        // an HTTP watch holds a server thread while it is open: one per watched kind, plus room for LISTs
        int port = server.start(Integer.parseInt(opt(args, "--port", "0")), renewEvery.isEmpty() ? 4 : 24);
        if (!renewEvery.isEmpty()) {
            server.renewLeases(Duration.ofSeconds(Long.parseLong(renewEvery.replaceAll("s$", ""))));
            System.err.println("renewing every live node's Lease every " + renewEvery + " (watch events)");
            Duration flipEvery = seconds(opt(args, "--flip-ready-every", "0s"));
            Duration statusEvery = seconds(opt(args, "--node-status-every", "0s"));
            server.changeNodes(flipEvery, statusEvery);
        }
        System.err.printf("synthetic cluster of %d nodes generated in %d ms; serving http://127.0.0.1:%d for at most %d s%n",
                nodes, (System.nanoTime() - t0) / 1_000_000, port, maxSeconds);
        String portFile = opt(args, "--port-file", "");
        if (!portFile.isEmpty()) {
            Path tmp = Path.of(portFile + ".tmp");
            Files.writeString(tmp, Integer.toString(port));
            Files.move(tmp, Path.of(portFile), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        // Bounded: the server stops by itself even if the harness dies.
        Thread.sleep(maxSeconds * 1000L);
        server.stop();
        System.err.println("max-seconds reached, stopped");
    }

    /** "10s", "2.5s", "250ms" or "10" (seconds). */
    static Duration seconds(String text) {
        if (text.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
        }
        return Duration.ofNanos((long) (Double.parseDouble(text.replaceAll("s$", "")) * 1e9));
    }

    private static HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** GETs url, reads the body fully; returns its first 4 KiB (metadata comes first in a LIST). */
    private static String fetch(HttpClient http, String url, long[] bytes) throws IOException, InterruptedException {
        HttpResponse<InputStream> rsp = http.send(HttpRequest.newBuilder(URI.create(url))
                .header("Accept", "application/json").timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        byte[] head = new byte[4096];
        int headLen = 0;
        byte[] buf = new byte[1 << 16];
        try (InputStream in = rsp.body()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                if (headLen < head.length) {
                    int c = Math.min(n, head.length - headLen);
                    System.arraycopy(buf, 0, head, headLen, c);
                    headLen += c;
                }
                bytes[0] += n;
            }
        }
        if (rsp.statusCode() != 200 && rsp.statusCode() != 404) {
            throw new IOException("HTTP " + rsp.statusCode() + " for " + url);
        }
        return new String(head, 0, headLen, StandardCharsets.UTF_8);
    }

    private static int listAll(HttpClient http, String server, String path, String selector, int limit, long[] bytes)
            throws IOException, InterruptedException {
        int pages = 0;
        String cont = null;
        do {
            StringBuilder url = new StringBuilder(server).append(path).append("?limit=").append(limit);
            if (selector != null) {
                url.append('&').append(selector);
            }
            if (cont != null) {
                url.append("&continue=").append(cont);
            }
            String head = fetch(http, url.toString(), bytes);
            pages++;
            Matcher m = CONTINUE.matcher(head);
            cont = m.find() && !m.group(1).isEmpty() ? m.group(1) : null;
        } while (cont != null);
        return pages;
    }

    private static void floor(String[] args) throws Exception {
        String server = opt(args, "--server", null);
        int limit = Integer.parseInt(opt(args, "--limit", "500"));
        HttpClient http = client();
        long[] bytes = {0};
        long t0 = System.nanoTime();
        int requests = 0;
        fetch(http, server + "/version", bytes);
        requests++;
        fetch(http, server + "/api/v1/namespaces/cattle-system", bytes);
        requests++;
        requests += listAll(http, server, "/api/v1/nodes", null, limit, bytes);
        requests += listAll(http, server, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", null, limit, bytes);
        requests += listAll(http, server, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", null, limit, bytes);
        requests += listAll(http, server, "/api/v1/namespaces/kube-system/secrets", null, limit, bytes);
        requests += listAll(http, server, "/apis/storage.k8s.io/v1/csinodes", null, limit, bytes);
        requests += listAll(http, server, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
                "labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes", limit, bytes);
        requests += listAll(http, server, "/apis/apps/v1/daemonsets", null, limit, bytes);
        System.out.printf("floor: %d requests, %d bytes, %d ms in-process%n", requests, bytes[0],
                (System.nanoTime() - t0) / 1_000_000);
    }

    private static void perNodeGet(String[] args) throws Exception {
        String server = opt(args, "--server", null);
        int max = Integer.parseInt(opt(args, "--max", "100000"));
        HttpClient http = client();
        long[] bytes = {0};
        long t0 = System.nanoTime();
        List<String> names = new ArrayList<>();
        String cont = null;
        int requests = 0;
        do {
            // names only, like `kubectl get nodes -o name`
            HttpResponse<String> rsp = http.send(HttpRequest.newBuilder(URI.create(server + "/api/v1/nodes?limit=500"
                            + (cont == null ? "" : "&continue=" + cont)))
                    .header("Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1").build(),
                    HttpResponse.BodyHandlers.ofString());
            requests++;
            Matcher m = NAME.matcher(rsp.body());
            while (m.find()) {
                names.add(m.group(1));
            }
            Matcher c = CONTINUE.matcher(rsp.body().substring(0, Math.min(4096, rsp.body().length())));
            cont = c.find() && !c.group(1).isEmpty() ? c.group(1) : null;
        } while (cont != null);
        for (String name : names.subList(0, Math.min(max, names.size()))) {
            fetch(http, server + "/api/v1/nodes/" + name, bytes);
            requests++;
        }
        System.out.printf("per-node-get: %d nodes, %d requests, %d bytes, %d ms in-process%n", names.size(), requests,
                bytes[0], (System.nanoTime() - t0) / 1_000_000);
    }
}
