package io.nodegate.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.time.Duration;

/**
 * A read-only Kubernetes API server over the synthetic cluster, on loopback only. It answers the way
 * kube-apiserver does where a client could tell the difference: LIST with limit/continue (400 on a malformed
 * token, continue set whenever the limit cut the page), label selectors (=, ==, !=, exists, !exists, in, notin)
 * and field selectors (400 on an unsupported field), PartialObjectMetadataList when asked with
 * {@code as=PartialObjectMetadataList}, Status bodies with reason NotFound, an empty 200 list for a namespace that
 * does not exist (what a real server does) but 404 on GET of that namespace, and legacy discovery for kubectl.
 *
 * <p>Every request except /_bench/* is counted, by method and path (query excluded), so a harness can tell how
 * many round trips a client made.
 */
final class FakeApiServer {

    private static final Set<String> NAMESPACES = Set.of("default", "kube-system", "kube-node-lease", "kube-public",
            "longhorn-system", "cattle-monitoring-system");

    private record Resource(String group, String version, String plural, String kind, boolean namespaced,
                            Collection items) {
        String apiVersion() {
            return group.isEmpty() ? version : group + "/" + version;
        }
    }

    private final SyntheticCluster cluster;
    private final Map<String, Resource> resources = new LinkedHashMap<>();
    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final LongAdder bytesSent = new LongAdder();
    private final Map<String, Map<String, Item>> byName = new ConcurrentHashMap<>();
    private HttpServer server;
    private ExecutorService executor;
    /** Open HTTP watches (plural, namespace or null, queue of event lines); see {@link #renewLeases}. */
    private final List<WatchStream> watches = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicLong watchEvents = new java.util.concurrent.atomic.AtomicLong();
    /** The resourceVersion of the next event (Lease renewals and Node changes share it, as etcd's revision). */
    private final java.util.concurrent.atomic.AtomicLong nextVersion;
    /** The Node changes sent ({@link #changeNodes}), one line each: node, Ready status, Unix time in µs. */
    private final java.util.Queue<String> nodeChanges = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private static final java.util.regex.Pattern VERSION = java.util.regex.Pattern.compile(
            "\"resourceVersion\":\"[^\"]*\"");

    private record WatchStream(String plural, String namespace,
                               java.util.concurrent.BlockingQueue<byte[]> events) {
    }

    FakeApiServer(SyntheticCluster cluster) {
        this.cluster = cluster;
        this.nextVersion = new java.util.concurrent.atomic.AtomicLong(cluster.resourceVersion() + 1);
        Map<String, Collection> c = cluster.collections;
        List<Item> leases = new ArrayList<>();
        for (String key : List.of("kube-node-lease/leases", "kube-system/leases")) {
            Collection part = c.get(key);
            for (int i = 0; i < part.size(); i++) {
                leases.add(part.get(i));
            }
        }
        add(new Resource("", "v1", "nodes", "Node", false, c.get("nodes")));
        add(new Resource("", "v1", "pods", "Pod", true, c.get("pods")));
        add(new Resource("", "v1", "secrets", "Secret", true, c.get("kube-system/secrets")));
        add(new Resource("coordination.k8s.io", "v1", "leases", "Lease", true,
                Collection.of("LeaseList", "coordination.k8s.io/v1", leases)));
        add(new Resource("storage.k8s.io", "v1", "csinodes", "CSINode", false, c.get("csinodes")));
        add(new Resource("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true,
                c.get("default/endpointslices")));
        add(new Resource("apps", "v1", "daemonsets", "DaemonSet", true, c.get("daemonsets")));
        add(new Resource("batch", "v1", "jobs", "Job", true, c.get("cattle-system/jobs")));
    }

    private void add(Resource r) {
        resources.put((r.group().isEmpty() ? "api/" : "apis/" + r.group() + "/") + r.version() + "/" + r.plural(), r);
    }

    int start(int port, int threads) throws IOException {
        // Without TCP_NODELAY, headers and body go out as two segments and Nagle plus delayed ACK add ~40 ms to
        // every small response, which no real API server does; it would make per-object GETs look 10x slower.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
        executor = Executors.newFixedThreadPool(threads);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        return server.getAddress().getPort();
    }

    void stop() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            if (path.startsWith("/_bench/")) {
                bench(ex, path);
                return;
            }
            requests.computeIfAbsent(ex.getRequestMethod() + " " + path, k -> new LongAdder()).increment();
            if (!ex.getRequestMethod().equals("GET")) {
                status(ex, 405, "MethodNotAllowed", "this benchmark server is read-only", null, null);
                return;
            }
            route(ex, path.replaceAll("/+$", ""), query(ex.getRequestURI().getRawQuery()));
        } catch (RuntimeException e) {
            status(ex, 500, "InternalError", String.valueOf(e), null, null);
        }
    }

    private void route(HttpExchange ex, String path, Map<String, String> q) throws IOException {
        switch (path) {
            case "/version" -> {
                json(ex, 200, "{\"major\":\"1\",\"minor\":\"31\",\"gitVersion\":\"v1.31.4+rke2r1\",\"gitCommit\":\"a78aa47129b8539636eb86a9d00e31b2720fe06b\",\"gitTreeState\":\"clean\",\"buildDate\":\"2024-12-10T21:58:14Z\",\"goVersion\":\"go1.22.9 X:boringcrypto\",\"compiler\":\"gc\",\"platform\":\"linux/amd64\"}");
                return;
            }
            case "/api" -> {
                json(ex, 200, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"127.0.0.1:6443\"}]}");
                return;
            }
            case "/apis" -> {
                json(ex, 200, groupList());
                return;
            }
            default -> {
            }
        }
        String[] p = path.substring(1).split("/");
        // p: api v1 [namespaces ns] plural [name]  |  apis group v1 [namespaces ns] plural [name]
        int base = p[0].equals("api") ? 2 : p[0].equals("apis") ? 3 : -1;
        if (base < 0 || p.length < base) {
            status(ex, 404, "NotFound", "the server could not find the requested resource", null, null);
            return;
        }
        String prefix = String.join("/", java.util.Arrays.copyOf(p, base));
        if (p.length == base) {
            String list = resourceList(prefix);
            if (list == null) {
                status(ex, 404, "NotFound", "the server could not find the requested resource", null, null);
            } else {
                json(ex, 200, list);
            }
            return;
        }
        String namespace = null;
        int i = base;
        if (p[i].equals("namespaces") && p.length >= i + 2) {
            namespace = p[i + 1];
            if (p.length == i + 2) {
                if (!prefix.equals("api/v1")) {
                    status(ex, 404, "NotFound", "the server could not find the requested resource", null, null);
                } else if (NAMESPACES.contains(namespace)) {
                    json(ex, 200, "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" + namespace
                            + "\",\"uid\":\"" + SyntheticCluster.uid("ns", namespace.hashCode())
                            + "\",\"resourceVersion\":\"1\"},\"spec\":{\"finalizers\":[\"kubernetes\"]},\"status\":{\"phase\":\"Active\"}}");
                } else {
                    status(ex, 404, "NotFound", "namespaces \"" + namespace + "\" not found", "namespaces", namespace);
                }
                return;
            }
            i += 2;
        }
        Resource r = resources.get(prefix + "/" + p[i]);
        if (r == null || (namespace != null && !r.namespaced())) {
            status(ex, 404, "NotFound", "the server could not find the requested resource", null, null);
            return;
        }
        boolean partial = String.valueOf(ex.getRequestHeaders().getFirst("Accept")).contains("as=PartialObjectMetadata");
        if (p.length == i + 2) {
            get(ex, r, namespace, URLDecoder.decode(p[i + 1], StandardCharsets.UTF_8), partial);
        } else if (p.length == i + 1) {
            list(ex, r, namespace, q, partial);
        } else {
            status(ex, 404, "NotFound", "the server could not find the requested resource", null, null);
        }
    }

    private void get(HttpExchange ex, Resource r, String namespace, String name, boolean partial) throws IOException {
        Item it = byName.computeIfAbsent(r.plural(), k -> index(r.items())).get(namespace + "/" + name);
        if (it == null) {
            status(ex, 404, "NotFound", r.plural() + " \"" + name + "\" not found", r.plural(), name);
            return;
        }
        send(ex, 200, partial ? partialItem(it) : it.json());
    }

    /** namespace/name -> item ("null/name" for cluster-scoped); pods are generated, so they are not indexed. */
    private static Map<String, Item> index(Collection c) {
        Map<String, Item> out = new java.util.HashMap<>();
        if (c instanceof SyntheticCluster.PodCollection) {
            return out;
        }
        for (int i = 0; i < c.size(); i++) {
            Item it = c.get(i);
            out.put(it.namespace() + "/" + it.name(), it);
        }
        return out;
    }

    private void list(HttpExchange ex, Resource r, String namespace, Map<String, String> q, boolean partial)
            throws IOException {
        if ("true".equals(q.get("watch"))) {
            watch(ex, r, namespace, q);
            return;
        }
        List<String[]> labelReqs;
        Map<String, String> fieldReqs;
        try {
            labelReqs = Selectors.parseLabels(q.getOrDefault("labelSelector", ""));
            fieldReqs = Selectors.parseFields(q.getOrDefault("fieldSelector", ""), r.plural());
        } catch (IllegalArgumentException e) {
            status(ex, 400, "BadRequest", e.getMessage(), null, null);
            return;
        }
        int limit = 0;
        if (q.containsKey("limit")) {
            try {
                limit = Integer.parseInt(q.get("limit"));
            } catch (NumberFormatException e) {
                status(ex, 400, "BadRequest", "invalid limit " + q.get("limit"), null, null);
                return;
            }
        }
        Collection c = r.items();
        int start = 0;
        String cont = q.get("continue");
        if (cont != null && !cont.isEmpty()) {
            start = decodeContinue(cont, r.plural());
            if (start < 0) {
                status(ex, 400, "BadRequest", "continue key is not valid: incorrect encoded start resourceVersion"
                        + " (version meta.k8s.io/v1)", null, null);
                return;
            }
        }
        int from = start;
        int to = c.size();
        if (c instanceof SyntheticCluster.PodCollection && fieldReqs.containsKey("spec.nodeName")) {
            int node = cluster.nodeNames.indexOf(fieldReqs.get("spec.nodeName"));
            if (node < 0) {
                from = to = 0;
            } else {
                from = Math.max(start, node * SyntheticCluster.DAEMONSETS.length);
                to = (node + 1) * SyntheticCluster.DAEMONSETS.length;
            }
        }
        boolean filtered = namespace != null || !labelReqs.isEmpty() || !fieldReqs.isEmpty();
        List<Item> page = new ArrayList<>();
        int next = -1;
        for (int i = from; i < to; i++) {
            Item it = c.get(i);
            if (namespace != null && !namespace.equals(it.namespace())) {
                continue;
            }
            if (!Selectors.matches(labelReqs, it.labels()) || !Selectors.matchesFields(fieldReqs, it)) {
                continue;
            }
            if (limit > 0 && page.size() == limit) {
                next = i;
                break;
            }
            page.add(it);
        }
        String kind = partial ? "PartialObjectMetadataList" : r.kind() + "List";
        String apiVersion = partial ? "meta.k8s.io/v1" : r.apiVersion();
        StringBuilder head = new StringBuilder("{\"kind\":\"").append(kind).append("\",\"apiVersion\":\"")
                .append(apiVersion).append("\",\"metadata\":{\"resourceVersion\":\"").append(cluster.resourceVersion())
                .append('"');
        if (next >= 0) {
            head.append(",\"continue\":\"").append(encodeContinue(next, r.plural())).append('"');
            if (!filtered) {
                head.append(",\"remainingItemCount\":").append(c.size() - next);
            }
        }
        head.append("},\"items\":[");
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.getResponseHeaders().set("Audit-Id", java.util.UUID.randomUUID().toString());
        ex.sendResponseHeaders(200, 0);
        OutputStream out = new BufferedOutputStream(ex.getResponseBody(), 1 << 16);
        long n = write(out, head.toString().getBytes(StandardCharsets.UTF_8));
        for (int k = 0; k < page.size(); k++) {
            if (k > 0) {
                out.write(',');
                n++;
            }
            n += write(out, partial ? partialItem(page.get(k)) : page.get(k).json());
        }
        n += write(out, "]}".getBytes(StandardCharsets.UTF_8));
        out.flush();
        bytesSent.add(n);
    }

    /**
     * An HTTP watch (one JSON event per line, chunked), as kube-apiserver streams it to a client that does not
     * upgrade to a WebSocket. It serves only the events {@link #renewLeases} makes (Lease MODIFIED) and ends after
     * timeoutSeconds (default 5 min), when clients watch again from their last resourceVersion.
     */
    private void watch(HttpExchange ex, Resource r, String namespace, Map<String, String> q) throws IOException {
        long seconds = Long.parseLong(q.getOrDefault("timeoutSeconds", "300"));
        WatchStream w = new WatchStream(r.plural(), namespace, new java.util.concurrent.LinkedBlockingQueue<>());
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        out.flush();
        watches.add(w);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        boolean bookmarks = "true".equals(q.get("allowWatchBookmarks"));
        byte[] bookmark = ("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"" + r.kind() + "\",\"apiVersion\":\""
                + r.apiVersion() + "\",\"metadata\":{\"resourceVersion\":\"" + cluster.resourceVersion() + "\"}}}")
                .getBytes(StandardCharsets.UTF_8);
        try {
            if (bookmarks) {
                // as kube-apiserver does for a quiet watch: the client learns at once that the watch is open
                out.write(bookmark);
                out.write('\n');
                out.flush();
            }
            while (System.nanoTime() < end) {
                byte[] event = w.events().poll(1, java.util.concurrent.TimeUnit.SECONDS);
                if (event == null) {
                    continue;
                }
                out.write(event);
                out.write('\n');
                byte[] more;
                while ((more = w.events().poll()) != null) {
                    out.write(more);
                    out.write('\n');
                }
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException clientWent) {
            // the client closed its watch
        } finally {
            watches.remove(w);
        }
    }

    /**
     * Renews every live node's Lease once per {@code every}, spread evenly (5,000 nodes every 10 s = 500 MODIFIED
     * events per second), as kubelets do, and sends each renewal to the open Lease watches. Down nodes (1%) stay
     * silent. The stored Leases are not rewritten: a re-list shows the renewTimes of generation time.
     */
    void renewLeases(Duration every) {
        Collection leases = cluster.collections.get("kube-node-lease/leases");
        int n = leases.size();
        long tickMillis = 20;
        double perTick = n * (double) tickMillis / every.toMillis();
        java.util.concurrent.ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(t -> {
            Thread th = new Thread(t, "lease-renewer");
            th.setDaemon(true);
            return th;
        });
        java.util.regex.Pattern renew = java.util.regex.Pattern.compile("\"renewTime\":\"[^\"]*\"");
        java.time.format.DateTimeFormatter micro = java.time.format.DateTimeFormatter
                .ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(java.time.ZoneOffset.UTC);
        double[] cursor = {0};
        boolean[] silent = new boolean[n];
        for (int i = 0; i < n; i++) {
            silent[i] = cluster.down(cluster.nodeNames.indexOf(leases.get(i).name()));
        }
        ticker.scheduleAtFixedRate(() -> {
            int from = (int) cursor[0];
            cursor[0] += perTick;
            int to = (int) cursor[0];
            String now = micro.format(java.time.Instant.now());
            for (int k = from; k < to; k++) {
                int i = k % n;
                Item it = leases.get(i);
                if (silent[i]) {
                    continue;
                }
                String json = new String(it.json(), StandardCharsets.UTF_8);
                json = renew.matcher(json).replaceAll("\"renewTime\":\"" + now + "\"");
                json = VERSION.matcher(json).replaceFirst("\"resourceVersion\":\"" + nextVersion.getAndIncrement()
                        + "\"");
                byte[] event = ("{\"type\":\"MODIFIED\",\"object\":" + json + "}").getBytes(StandardCharsets.UTF_8);
                for (WatchStream w : watches) {
                    if (w.plural().equals("leases") && (w.namespace() == null
                            || w.namespace().equals("kube-node-lease"))) {
                        w.events().add(event);
                        watchEvents.incrementAndGet();
                    }
                }
            }
        }, tickMillis, tickMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** A live Node's Ready condition as the synthetic cluster writes it (SyntheticCluster#condition). */
    private static final java.util.regex.Pattern READY = java.util.regex.Pattern.compile(
            "\\{\"type\":\"Ready\",\"status\":\"(True|False)\",\"lastHeartbeatTime\":\"[^\"]*\","
                    + "\"lastTransitionTime\":\"[^\"]*\",\"reason\":\"[^\"]*\",\"message\":\"[^\"]*\"\\}");
    private static final java.util.regex.Pattern HEARTBEAT = java.util.regex.Pattern.compile(
            "\"lastHeartbeatTime\":\"[^\"]*\"");
    /**
     * The kubelet's Ready condition when the container runtime's network is not ready: reason KubeletNotReady and the
     * runtime's error as message (kubernetes pkg/kubelet/nodestatus/setters.go, ReadyCondition; the message is
     * the one a node whose CNI has not started reports, pkg/kubelet/kubelet.go updateRuntimeUp).
     */
    private static final String NOT_READY_REASON = "KubeletNotReady";
    private static final String NOT_READY_MESSAGE = "container runtime network not ready: NetworkReady=false "
            + "reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized";

    /**
     * Node changes on the open Node watches, for the event -> metric latency (bench/watch.sh):
     * <ul>
     *   <li>{@code flipEvery} (zero: none): every that long one live Node's Ready condition changes, alternately
     *       True -> False on the next node (NG102 appears) and back to True (it resolves). Each change is noted with
     *       the time it was sent, served as text on /_bench/node-changes ("node status unix-µs" per line).</li>
     *   <li>{@code statusEvery} (zero: none): every live Node's status is posted again once per that long, spread
     *       evenly, moving only lastHeartbeatTime: what a kubelet does every nodeStatusReportFrequency (5m) when
     *       nothing changed (kubernetes pkg/kubelet/apis/config/v1beta1/defaults.go: NodeStatusReportFrequency 5 min). At 5,000 nodes that
     *       is ~17 Node updates a second, each a change to nodegate watch (it runs the debounced pass).</li>
     * </ul>
     * The stored Nodes are not rewritten (a re-list shows the generated ones), as for the Lease renewals.
     */
    void changeNodes(Duration flipEvery, Duration statusEvery) {
        Collection nodes = cluster.collections.get("nodes");
        int n = nodes.size();
        String[] current = new String[n];
        boolean[] live = new boolean[n];
        java.util.List<Integer> flippable = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            current[i] = new String(nodes.get(i).json(), StandardCharsets.UTF_8);
            int index = cluster.nodeNames.indexOf(nodes.get(i).name());
            live[i] = !cluster.down(index);
            if (live[i] && !cluster.cordoned(index) && index >= 3 && READY.matcher(current[i]).find()) {
                flippable.add(i);
            }
        }
        java.util.concurrent.ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(t -> {
            Thread th = new Thread(t, "node-changes");
            th.setDaemon(true);
            return th;
        });
        if (!flipEvery.isZero() && !flippable.isEmpty()) {
            int[] step = {0};
            ticker.scheduleAtFixedRate(() -> {
                int k = step[0]++;
                // a stride through the nodes, so the flipped ones are spread over the list
                int i = flippable.get((k / 2 * 613) % flippable.size());
                boolean notReady = k % 2 == 0;
                java.time.Instant now = java.time.Instant.now();
                String at = now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
                String ready = notReady
                        ? "{\"type\":\"Ready\",\"status\":\"False\",\"lastHeartbeatTime\":\"" + at
                        + "\",\"lastTransitionTime\":\"" + at + "\",\"reason\":\"" + NOT_READY_REASON
                        + "\",\"message\":\"" + NOT_READY_MESSAGE + "\"}"
                        : "{\"type\":\"Ready\",\"status\":\"True\",\"lastHeartbeatTime\":\"" + at
                        + "\",\"lastTransitionTime\":\"" + at + "\",\"reason\":\"KubeletReady\","
                        + "\"message\":\"kubelet is posting ready status\"}";
                current[i] = READY.matcher(current[i]).replaceFirst(java.util.regex.Matcher.quoteReplacement(ready));
                nodeChanges.add(nodes.get(i).name() + " " + (notReady ? "False" : "True") + " "
                        + (now.getEpochSecond() * 1_000_000L + now.getNano() / 1000));
                sendNode(current, i);
            }, flipEvery.toMillis(), flipEvery.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        if (!statusEvery.isZero()) {
            long tickMillis = 50;
            double perTick = n * (double) tickMillis / statusEvery.toMillis();
            double[] cursor = {0};
            ticker.scheduleAtFixedRate(() -> {
                int from = (int) cursor[0];
                cursor[0] += perTick;
                String at = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
                for (int k = from; k < (int) cursor[0]; k++) {
                    int i = k % n;
                    if (live[i]) {
                        current[i] = HEARTBEAT.matcher(current[i]).replaceAll("\"lastHeartbeatTime\":\"" + at + "\"");
                        sendNode(current, i);
                    }
                }
            }, tickMillis, tickMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /** Sends Node {@code i}, as it is now, to the open Node watches with the next resourceVersion. */
    private void sendNode(String[] current, int i) {
        current[i] = VERSION.matcher(current[i]).replaceFirst("\"resourceVersion\":\"" + nextVersion.getAndIncrement()
                + "\"");
        byte[] event = ("{\"type\":\"MODIFIED\",\"object\":" + current[i] + "}").getBytes(StandardCharsets.UTF_8);
        for (WatchStream w : watches) {
            if (w.plural().equals("nodes")) {
                w.events().add(event);
                watchEvents.incrementAndGet();
            }
        }
    }

    private static byte[] partialItem(Item it) {
        byte[] prefix = "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":"
                .getBytes(StandardCharsets.UTF_8);
        byte[] meta = it.metadataJson();
        byte[] out = new byte[prefix.length + meta.length + 1];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(meta, 0, out, prefix.length, meta.length);
        out[out.length - 1] = '}';
        return out;
    }

    private static long write(OutputStream out, byte[] b) throws IOException {
        out.write(b);
        return b.length;
    }

    private String encodeContinue(int next, String plural) {
        String raw = "{\"v\":\"meta.k8s.io/v1\",\"rv\":" + cluster.resourceVersion() + ",\"start\":\"" + plural + "/"
                + next + "\"}";
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    private int decodeContinue(String token, String plural) {
        try {
            String raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            String marker = "\"start\":\"" + plural + "/";
            int at = raw.indexOf(marker);
            if (!raw.startsWith("{\"v\":\"meta.k8s.io/v1\"") || at < 0) {
                return -1;
            }
            return Integer.parseInt(raw.substring(at + marker.length(), raw.indexOf('"', at + marker.length())));
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    private String groupList() {
        Map<String, String> groups = new TreeMap<>();
        for (Resource r : resources.values()) {
            if (!r.group().isEmpty()) {
                groups.put(r.group(), r.version());
            }
        }
        StringBuilder out = new StringBuilder("{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[");
        boolean first = true;
        for (Map.Entry<String, String> g : groups.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            String gv = g.getKey() + "/" + g.getValue();
            out.append("{\"name\":\"").append(g.getKey()).append("\",\"versions\":[{\"groupVersion\":\"").append(gv)
                    .append("\",\"version\":\"").append(g.getValue()).append("\"}],\"preferredVersion\":{\"groupVersion\":\"")
                    .append(gv).append("\",\"version\":\"").append(g.getValue()).append("\"}}");
        }
        return out.append("]}").toString();
    }

    private String resourceList(String prefix) {
        StringBuilder items = new StringBuilder();
        String groupVersion = null;
        for (Resource r : resources.values()) {
            String rPrefix = r.group().isEmpty() ? "api/" + r.version() : "apis/" + r.group() + "/" + r.version();
            if (!rPrefix.equals(prefix)) {
                continue;
            }
            groupVersion = r.apiVersion();
            if (items.length() > 0) {
                items.append(',');
            }
            items.append("{\"name\":\"").append(r.plural()).append("\",\"singularName\":\"")
                    .append(r.kind().toLowerCase()).append("\",\"namespaced\":").append(r.namespaced())
                    .append(",\"kind\":\"").append(r.kind()).append("\",\"verbs\":[\"get\",\"list\"]}");
        }
        if (prefix.equals("api/v1")) {
            items.append(",{\"name\":\"namespaces\",\"singularName\":\"namespace\",\"namespaced\":false,\"kind\":\"Namespace\",\"verbs\":[\"get\"]}");
        }
        if (groupVersion == null) {
            return null;
        }
        return "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"" + groupVersion
                + "\",\"resources\":[" + items + "]}";
    }

    private void bench(HttpExchange ex, String path) throws IOException {
        if (path.equals("/_bench/node-changes")) {
            send(ex, 200, String.join("\n", nodeChanges).concat(nodeChanges.isEmpty() ? "" : "\n")
                    .getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (path.equals("/_bench/reset")) {
            requests.clear();
            bytesSent.reset();
        }
        long total = requests.values().stream().mapToLong(LongAdder::sum).sum();
        StringBuilder out = new StringBuilder("{\"requests\":").append(total).append(",\"bytes\":")
                .append(bytesSent.sum()).append(",\"watchEvents\":").append(watchEvents.get()).append(",\"nodes\":").append(cluster.nodeCount).append(",\"byPath\":{");
        boolean first = true;
        for (Map.Entry<String, LongAdder> e : new TreeMap<>(requests).entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            out.append(Json.q(e.getKey())).append(':').append(e.getValue().sum());
        }
        json(ex, 200, out.append("}}").toString());
    }

    private void status(HttpExchange ex, int code, String reason, String message, String kind, String name)
            throws IOException {
        String details = kind == null ? "" : ",\"details\":{\"name\":" + Json.q(name) + ",\"kind\":\"" + kind + "\"}";
        json(ex, code, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
                + Json.q(message) + ",\"reason\":\"" + reason + "\"" + details + ",\"code\":" + code + "}");
    }

    private void json(HttpExchange ex, int code, String body) throws IOException {
        send(ex, code, body.getBytes(StandardCharsets.UTF_8));
    }

    private void send(HttpExchange ex, int code, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(code, body.length);
        ex.getResponseBody().write(body);
        bytesSent.add(body.length);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(k, v);
        }
        return out;
    }
}
