package io.nodegate.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A real HTTP Kubernetes API server for tests and benchmarks: fabric8's {@link KubernetesMockServer} in CRUD
 * mode (objects you create are stored and served back) with a dispatcher in front that makes it behave like
 * a real kube-apiserver where nodegate depends on it.
 *
 * <p>Behaviour this class adds on top of the fabric8 CRUD mock:
 * <ul>
 *   <li><b>Pagination</b>: LIST honours {@code limit} and {@code continue}. Items are served in key order
 *       (namespace/name), a page that is not the last carries {@code metadata.continue} (kube-apiserver's token
 *       shape: the revision and the next key) and {@code metadata.remainingItemCount}; every page carries the first
 *       page's {@code metadata.resourceVersion} (the revision in its token), as a real server reads all pages of one
 *       LIST at one snapshot; a malformed continue token answers 400, one older than {@link #expireWatches()} 410.
 *       The mock alone returns everything in one answer, so a client that never pages would pass unnoticed.</li>
 *   <li><b>List kinds</b>: a LIST answers {@code NodeList} (apiVersion v1), {@code LeaseList}
 *       (coordination.k8s.io/v1)... as kube-apiserver does, never the CRUD mock's {@code "kind":"List"}, which only
 *       kubectl writes. Every list page carries a {@code metadata.resourceVersion}.</li>
 *   <li><b>Field selectors</b>: {@code metadata.name}, {@code metadata.namespace}, {@code spec.nodeName}
 *       (pods only) and {@code type} (Secrets only), with {@code =}, {@code ==}, {@code !=}. Any other field answers 400 "field label not
 *       supported", as the real server does. The mock alone silently ignores {@code spec.nodeName}.</li>
 *   <li><b>Label selectors</b>: the full set-based syntax ({@code k=v}, {@code k!=v}, {@code k},
 *       {@code !k}, {@code k in (a,b)}, {@code k notin (a,b)}); the mock alone ignores {@code in}/{@code notin}.</li>
 *   <li><b>Date</b>: every answer carries one (the real server's clock is what a baseline records).</li>
 *   <li><b>PATCH</b> answers 200 with the patched object, as kube-apiserver does (the mock alone says 202).</li>
 *   <li><b>Representations</b> ({@link ApiMediaTypes}): a GET (LIST or one object) sent with
 *       {@code Accept: application/json;as=Table;g=meta.k8s.io;v=v1} answers a Table (Secrets with the Secret
 *       printer's Type and Data columns; each row's object per {@code includeObject}, by default its
 *       PartialObjectMetadata), {@code as=PartialObjectMetadataList}/{@code as=PartialObjectMetadata} answer
 *       metadata only, media ranges are tried in order and none acceptable is 406. Without such a header the
 *       objects come whole, as from the real server. An HTTP streaming watch honours the same header as
 *       kube-apiserver does: with {@code as=Table} each event's object is a one-row Table (column definitions on
 *       the stream's first event only), ERROR Statuses unchanged. {@link #answersSent()} keeps what was sent,
 *       watch event lines included.</li>
 *   <li><b>/version</b> answers the gitVersion set with {@link #setGitVersion(String)}.</li>
 *   <li><b>Unserved APIs</b>: {@link #unserve(String)} makes a resource path answer 404 "the server could not
 *       find the requested resource", as for an API group/resource the cluster does not have (e.g. CSINode).
 *       Missing objects and namespaces answer 404 NotFound (CRUD mock behaviour, kept).</li>
 *   <li><b>Failure injection</b>: {@link #failOn(String, String, int)} and
 *       {@link #failOn(String, String, int, int)} answer an error Status (403, 429, 500, ...) for one path,
 *       optionally only after the first N requests succeeded (to break a paginated LIST half-way). Setup
 *       requests made through this class are never failed.</li>
 *   <li><b>Watch semantics</b> (what informers depend on): LIST answers carry {@code metadata.resourceVersion};
 *       a WATCH sent with a resourceVersion older than the last {@link #expireWatches()} answers 410 Gone
 *       ("too old resource version"), and {@link #expireWatches()} also sends the ERROR 410 event to every open
 *       watch and closes it, so informers must re-list. That plays in one call what takes a real apiserver longer
 *       (seen on kube-apiserver v1.34 in the lab, WatchOnRealControlPlaneTest): an etcd compaction alone changes
 *       nothing for watches, which are served from the apiserver's watch cache (a watch from before the compacted
 *       revision is still served); a version is gone once the cache's own window (at least 75 s of events) has
 *       moved past it, or the apiserver restarted. The real answer is then 200 with one ERROR event (410, reason
 *       Expired, "too old resource version: 317 (319)"), where this stand-in answers a watch's start with an HTTP
 *       410 status; nodegate takes both as Gone. With
 *       {@code allowWatchBookmarks=true} open watches get a BOOKMARK event (the current resourceVersion) every
 *       {@link #bookmarkEvery(java.time.Duration)}. {@link #openWatches()} counts watches open now. A watch from a
 *       resourceVersion does not get the objects at or before that version again (the mock alone replays every
 *       stored object as ADDED, so a LIST-then-WATCH client would see its whole list twice).</li>
 *   <li><b>HTTP streaming watches</b>, as client-go, kubectl and nodegate's lean client watch: {@code GET
 *       <collection>?watch=true} (or {@code watch=1}) without a WebSocket upgrade answers 200,
 *       {@code application/json}, chunked, one JSON event per line, each flushed as it happens, with every watch
 *       rule above (selectors, 410 at start, ERROR 410 then end of stream on {@link #expireWatches()}, bookmarks,
 *       {@link #failOn}, {@link #requireBearerToken} (401), {@link #unserve} (404), counting, the request log,
 *       {@link #openWatches()}). {@code timeoutSeconds=N} ends the body cleanly after N seconds; a client that
 *       hangs up ends the server-side watch. The mock serves watches only as WebSocket sessions, so
 *       {@link #url()} is a small front ({@link ApiFrontServer}) that relays a WebSocket watch to the mock as such
 *       a stream and passes every other request through byte for byte (WebSocket watches of fabric8 clients are
 *       tunnelled unchanged and keep working).</li>
 *   <li><b>A dead or broken apiserver</b> (played by the front, which owns the connections):
 *       {@link #freezeOpenWatches()} (open watch streams go silent for good, connection open, no FIN),
 *       {@link #holdRequests} (requests accepted and never answered), {@link #endWatchesAtOnce} (every WATCH answers
 *       200 and ends with no event), {@link #dropOpenWatches()} (open watches end now), {@link #delayAnswers} (writes
 *       land at once, answers come late); {@link #onRequest} sees each request as it reaches the store.</li>
 *   <li><b>Consistent reads</b>: a LIST's {@code metadata.resourceVersion} is the store's current version (the
 *       highest any write has produced, of any kind), as a real apiserver's LIST without a resourceVersion carries
 *       etcd's current revision; so a {@code limit=1} LIST tells the current version.</li>
 *   <li><b>DELETE preconditions</b>: DeleteOptions {@code preconditions.uid} / {@code resourceVersion} that the stored
 *       object does not meet answer 409 Conflict "Precondition failed" (the mock alone ignores them);
 *       {@link #beforeServing} lets a test change the object just before such a DELETE arrives.</li>
 *   <li><b>Dry runs</b>: a POST or PUT with {@code dryRun=All} is checked as the real write would be (the
 *       validation below, an {@link #admit} review, AlreadyExists for a POST, NotFound and the resourceVersion
 *       precondition for a PUT) and answered with the object, but nothing is stored (the mock alone would store
 *       it).</li>
 *   <li><b>ConfigMap size</b>: a ConfigMap whose {@code data} and {@code binaryData} values exceed 1 MiB is refused
 *       with 422 Invalid, as kube-apiserver's {@code ValidateConfigMap} does (kubernetes
 *       {@code pkg/apis/core/validation/validation.go}: the values' lengths summed against
 *       {@code core.MaxSecretSize}, 1 MiB).</li>
 *   <li><b>Request counting</b> per "METHOD path" (query excluded). Setup calls made through this class
 *       ({@link #create}, {@link #delete}, {@link #client()}) are not counted, so counts show what the code
 *       under test asked.</li>
 * </ul>
 *
 * <p>What it still lacks compared to a real API server:
 * <ul>
 *   <li>No garbage collector: deleting a Node leaves its Lease, CSINode, node-password Secret and pods.
 *       Tests play the GC (delete dependants themselves, with the delays they want to model).</li>
 *   <li>No node lifecycle controller, no kubelet: conditions, taints and Lease renewals change only when a
 *       test writes them.</li>
 *   <li>No discovery documents (/api, /apis) beyond what the CRUD mock answers; no admission, no RBAC (use
 *       {@link #failOn} for 403), no consistent snapshot across pages (a page's items reflect the store at the
 *       time it is served, keyed after the previous page's last key; its resourceVersion is the first page's, as a
 *       real server's, but a real server also serves the items as they were then).</li>
 *   <li>LIST in a namespace that does not exist answers an empty list (as a real server does); GET of the
 *       namespace answers 404.</li>
 *   <li>No watch history: a watch from resourceVersion V does not replay the events after V. What changed between
 *       V and the start of the watch arrives once as ADDED with the object's current state (a real server sends
 *       the MODIFIED events), and deletions in that gap are not sent at all (a real server sends DELETED). Tests
 *       that need the gap covered write after the watch is open ({@link #openWatches()}).</li>
 *   <li>A DELETED event carries the object's last resourceVersion, not a new one as a real server's does.</li>
 *   <li>An HTTP watch stream answers {@code Connection: close} and owns its connection (how the front notices a
 *       client that hangs up while no event flows); a real server keeps the connection for later requests.
 *       Only HTTP/1.1: no HTTP/2, no TLS (kube-apiserver serves watches over HTTP/2 with TLS).</li>
 * </ul>
 *
 * <p>Usage: {@code try (ApiTestServer api = ApiTestServer.start()) { api.create(node); Path kc =
 * api.writeKubeconfig(dir.resolve("kubeconfig")); ... }}. Use {@link #mock()} for fabric8
 * {@code expect()} expectations, which are consulted before the CRUD store.
 */
public final class ApiTestServer implements AutoCloseable {

    /**
     * fabric8's mock server logs every request it answers at INFO (a formatted line through java.util.logging to the
     * test's output): 15,000 lines in one run of FaultMatrixTest, read by nobody (requestLog() is what tests check).
     * Its warnings still show. Held here: java.util.logging keeps loggers only weakly, and a level set on a logger
     * nobody holds is lost before the mock server's class asks for it.
     */
    private static final java.util.logging.Logger MOCK_SERVER_LOG =
            java.util.logging.Logger.getLogger(MockWebServer.class.getName());

    static {
        MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** Name of the context, cluster and user written by {@link #writeKubeconfig(Path)}. */
    public static final String CONTEXT = "nodegate-test";

    private static final String SETUP_HEADER = "X-Nodegate-Test-Setup";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final KubernetesMockServer mock;
    private final ApiFrontServer front;
    private final KubernetesClient setupClient;
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final List<String> requestLog = new CopyOnWriteArrayList<>();
    private final List<String> requestAccepts = new CopyOnWriteArrayList<>();
    private final List<String> answersSent = new CopyOnWriteArrayList<>();
    private final List<Failure> failures = new CopyOnWriteArrayList<>();
    private final List<String> unserved = new CopyOnWriteArrayList<>();
    private volatile String gitVersion = "v1.34.1+rke2r1";
    private volatile String requiredToken;
    private final java.util.Set<WatchSession> watches = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicLong maxResourceVersion = new java.util.concurrent.atomic.AtomicLong();
    private volatile long expiredBelow;
    private volatile java.time.Duration bookmarkEvery = java.time.Duration.ofSeconds(1);
    private volatile boolean representations = true;
    private volatile java.util.function.BiConsumer<String, String> requestListener;
    private final Map<String, Admission> admissions = new ConcurrentHashMap<>();
    private final Map<String, Interleave> interleaves = new ConcurrentHashMap<>();
    private final Map<String, List<Map<String, Object>>> printerColumns = new ConcurrentHashMap<>();
    private final java.util.concurrent.ScheduledExecutorService bookmarks =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "api-test-server-bookmarks");
                t.setDaemon(true);
                return t;
            });

    private record Failure(String method, String path, int code, int succeedFirst, AtomicInteger seen) {
    }

    private record Racer(String method, String path, String mergePatch) {
    }

    private final List<Racer> racers = new CopyOnWriteArrayList<>();

    private ApiTestServer() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        MixedDispatcher crud = new MixedDispatcher(responses);
        mock = new KubernetesMockServer(new Context(), new MockWebServer(), responses, new RealisticDispatcher(crud),
                false);
        mock.init();
        front = new ApiFrontServer(mock.getHostName(), mock.getHostName(), mock.getPort(), this::watchLines,
                head -> head.header(SETUP_HEADER) != null);
        // setup goes through the front too: tests hand client() to the code under test, which records url()
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(url())
                .withTrustCerts(true)
                .withNamespace("default")
                .withRequestRetryBackoffLimit(0)
                .withCustomHeaders(Map.of(SETUP_HEADER, "true"))
                .build();
        setupClient = new KubernetesClientBuilder().withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory()).build();
    }

    /** Starts a server on a free loopback port. */
    public static ApiTestServer start() {
        return new ApiTestServer();
    }

    /**
     * Base URL, e.g. {@code http://localhost:41234}, without trailing slash: the front that serves HTTP streaming
     * watches and passes everything else to the mock.
     */
    public String url() {
        return "http://" + mock.getHostName() + ":" + front.port();
    }

    /** The underlying fabric8 mock, for {@code expect()} expectations (consulted before the CRUD store). */
    public KubernetesMockServer mock() {
        return mock;
    }

    /** A client for test setup; its requests are not counted. */
    public KubernetesClient client() {
        return setupClient;
    }

    /**
     * A new client that behaves like the code under test: its requests are counted and subject to
     * {@link #failOn}. The caller closes it.
     */
    public KubernetesClient newClient() {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(url())
                .withNamespace("default")
                .withRequestRetryBackoffLimit(0)
                .build();
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new JdkHttpClientFactory())
                .build();
    }

    /** Creates the objects (namespaced objects without a namespace go to "default"). Status is kept as given. */
    public ApiTestServer create(HasMetadata... objects) {
        awaitClosingWatches();
        for (HasMetadata o : objects) {
            setupClient.resource(o).create();
        }
        return this;
    }

    /** Watches whose mock listener is being closed on another thread (see WatchSession.closeInnerLater). */
    private final java.util.concurrent.atomic.AtomicInteger closing = new java.util.concurrent.atomic.AtomicInteger();

    /** Waits (a few seconds at most) until no watch is half closed, so a write's event cannot meet one. */
    private void awaitClosingWatches() {
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (closing.get() > 0 && System.nanoTime() < until) {
            Thread.onSpinWait();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Creates or replaces the objects. */
    public ApiTestServer apply(HasMetadata... objects) {
        awaitClosingWatches();
        for (HasMetadata o : objects) {
            setupClient.resource(o).createOr(op -> op.update());
        }
        return this;
    }

    /** Deletes the objects; nothing else goes with them (no GC here). */
    public ApiTestServer delete(HasMetadata... objects) {
        awaitClosingWatches();
        for (HasMetadata o : objects) {
            setupClient.resource(o).delete();
        }
        return this;
    }

    public ApiTestServer setGitVersion(String version) {
        this.gitVersion = version;
        return this;
    }

    /**
     * Makes every request under {@code resourcePath} (e.g. {@code /apis/storage.k8s.io/v1/csinodes}) answer
     * 404 as for a resource the server does not serve.
     */
    public ApiTestServer unserve(String resourcePath) {
        unserved.add(resourcePath);
        return this;
    }

    /**
     * Applies the JSON merge patch {@code mergePatch} to the object at {@code path} just before the next
     * {@code method} request to exactly that path is served: another writer getting in between a client's last read
     * and its write (the object's resourceVersion moves on, as on a real server). Several given for the same call are
     * used one per request, in the order given.
     */
    public ApiTestServer beforeServing(String method, String path, String mergePatch) {
        racers.add(new Racer(method, path, mergePatch));
        return this;
    }

    /** Every {@code method} request to exactly {@code path} (query ignored) answers {@code code}. */
    public ApiTestServer failOn(String method, String path, int code) {
        return failOn(method, path, code, 0);
    }

    /** Like {@link #failOn(String, String, int)} but the first {@code succeedFirst} requests are served. */
    public ApiTestServer failOn(String method, String path, int code, int succeedFirst) {
        failures.add(new Failure(method.toUpperCase(), path, code, succeedFirst, new AtomicInteger()));
        return this;
    }

    /**
     * Compaction: every open watch gets an ERROR event with a 410 Expired Status and is closed, and any later watch
     * from a resourceVersion up to now answers 410 Gone, so a client must LIST again to go on watching.
     */
    public ApiTestServer expireWatches() {
        expiredBelow = maxResourceVersion.get() + 1;
        maxResourceVersion.set(expiredBelow);
        for (WatchSession w : List.copyOf(watches)) {
            w.expire();
        }
        return this;
    }

    /**
     * From now on every request of the code under test must carry {@code Authorization: Bearer TOKEN}, else 401
     * Unauthorized, as an apiserver checks a service account token.
     */
    public ApiTestServer requireBearerToken(String token) {
        this.requiredToken = token;
        return this;
    }

    /**
     * The apiserver host the code's connections go through loses power: every HTTP watch stream open now stays open
     * and silent for good (no byte, no FIN, its timeoutSeconds no longer ends it). Combine with
     * {@link #holdRequests} for "new requests get no answer either". Setup calls are not affected.
     */
    public ApiTestServer freezeOpenWatches() {
        front.freezeOpenWatches();
        return this;
    }

    /** Every HTTP watch stream open now ends cleanly, as at its timeoutSeconds (the client watches again). */
    public ApiTestServer dropOpenWatches() {
        front.dropOpenWatches();
        return this;
    }

    /**
     * From now on, requests of the code under test for which {@code which} holds ("METHOD target", e.g.
     * {@code "GET /api/v1/nodes?watch=true&..."}) are accepted and never answered: the connection stays open, no
     * byte comes back. {@link #answerRequests()} ends it for new requests; the ones held stay held (the host is gone).
     */
    public ApiTestServer holdRequests(Predicate<String> which) {
        front.hold(head -> which.test(head.method() + " " + head.target()));
        return this;
    }

    /** New requests are answered again (see {@link #holdRequests}). */
    public ApiTestServer answerRequests() {
        front.hold(null);
        return this;
    }

    /** From now on every HTTP watch of the code under test answers 200 and ends at once, with no event. */
    public ApiTestServer endWatchesAtOnce(boolean atOnce) {
        front.endWatchesAtOnce(atOnce);
        return this;
    }

    /**
     * Requests of the code under test for which {@code which} holds ("METHOD target") are applied at once and answered
     * {@code by} later (a slow POST whose write has landed).
     */
    public ApiTestServer delayAnswers(Predicate<String> which, java.time.Duration by) {
        front.delayAnswers(head -> which.test(head.method() + " " + head.target()), by);
        return this;
    }

    /** HTTP watch streams of the code under test open at the front now, frozen ones included. */
    public int openWatchStreams() {
        return front.openStreams();
    }

    /**
     * Called with every request of the code under test as it reaches the store ("METHOD path?query" and the body),
     * before it is applied: when a write landed, e.g. which replica posted an Event while which one held a Lease.
     */
    public ApiTestServer onRequest(java.util.function.BiConsumer<String, String> listener) {
        this.requestListener = listener;
        return this;
    }

    /** How often open watches that allow bookmarks get one (default 1 s; a real apiserver: about a minute). */
    public ApiTestServer bookmarkEvery(java.time.Duration every) {
        this.bookmarkEvery = every;
        return this;
    }

    /**
     * What a validating admission step (a CRD's x-kubernetes-validations, a webhook) says about a write: null to
     * admit, else the message of the 422 Invalid the API server answers.
     */
    @FunctionalInterface
    public interface Admission {
        /** @param oldObject the stored object (null on a create); @param newObject the object written */
        String review(JsonNode oldObject, JsonNode newObject);
    }

    /**
     * Reviews every POST to the collection at {@code collectionPath} and every PUT of one of its objects (status
     * subresource included) with {@code admission}; a denial answers 422 Invalid and stores nothing, as kube-apiserver
     * does for a CRD's validation rules. Setup writes are reviewed too (a real server has no back door). A review runs
     * before the write's resourceVersion is compared, so a test can make a concurrent write from inside it.
     */
    public ApiTestServer admit(String collectionPath, Admission admission) {
        admissions.put(collectionPath, admission);
        return this;
    }

    /** The store, read and written directly (no HTTP, no admission): what another client's write leaves behind. */
    public interface Store {
        /** The object at a path, or null. */
        JsonNode get(String path);

        /** Replaces the object (or, for a path ending in /status, its status) at a path. */
        void put(String path, JsonNode object);
    }

    /** Runs before a write to a collection is reviewed and stored: a concurrent writer landing first. */
    @FunctionalInterface
    public interface Interleave {
        void before(String method, String path, JsonNode written, Store store);
    }

    /**
     * Lets a test make a write land between the code under test's read and its write, deterministically: {@code
     * interleave} runs inside the server before each POST or PUT to {@code collectionPath} (status included), and
     * what it writes through the {@link Store} is there when the write is checked (its resourceVersion compared).
     * Requests over HTTP cannot do this from inside the server, which serves one request at a time.
     */
    public ApiTestServer interleave(String collectionPath, Interleave interleave) {
        interleaves.put(collectionPath, interleave);
        return this;
    }

    /**
     * Serves Tables of {@code resource} with these columns (a CRD's additionalPrinterColumns: name, type, jsonPath),
     * after the implicit Name column, as the apiextensions server's table convertor does (staging/src/k8s.io/
     * apiextensions-apiserver/pkg/registry/customresource/tableconvertor/tableconvertor.go).
     */
    public ApiTestServer printerColumns(String resource, List<Map<String, Object>> columns) {
        printerColumns.put(resource, List.copyOf(columns));
        return this;
    }

    /**
     * From now on every GET and watch answers the whole objects whatever its Accept header asks for, as a server
     * (or a proxy in front of it) that ignores {@code as=Table}/{@code as=PartialObjectMetadata} does: the header's
     * {@code application/json} fallback is what it serves.
     */
    public ApiTestServer withoutTables() {
        this.representations = false;
        return this;
    }

    /** The Accept header the server honours: the request's, or none when {@link #withoutTables()}. */
    private String honoured(String accept) {
        return representations ? accept : null;
    }

    /** Watches open now (not counting setup clients'). */
    public int openWatches() {
        return (int) watches.stream().filter(w -> w.open && !w.setup).count();
    }

    public ApiTestServer clearFailures() {
        failures.clear();
        return this;
    }

    /** Requests counted for "METHOD path" (query excluded), e.g. {@code requests("GET", "/api/v1/nodes")}. */
    public int requests(String method, String path) {
        AtomicInteger c = counts.get(method.toUpperCase() + " " + path);
        return c == null ? 0 : c.get();
    }

    /** Total counted requests (all methods and paths). */
    public int totalRequests() {
        return counts.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** Counted requests as "METHOD path" -> count. */
    public Map<String, Integer> requestCounts() {
        Map<String, Integer> out = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> out.put(e.getKey(), e.getValue().get()));
        return out;
    }

    /** Counted request lines including the query, in arrival order. */
    public List<String> requestLog() {
        return List.copyOf(requestLog);
    }

    /** Every request of the code under test as "METHOD path?query Accept: value", in order. */
    public List<String> requestAccepts() {
        return List.copyOf(requestAccepts);
    }

    /**
     * The bodies of the answers to the code under test's GETs (LISTs and named GETs; setup calls excluded), and each
     * event line of its HTTP streaming watches, exactly as sent: what crossed the wire, e.g. to prove that no Secret
     * value did.
     */
    public List<String> answersSent() {
        return List.copyOf(answersSent);
    }

    /**
     * What each event line of one HTTP watch becomes: the representation its Accept header asks for
     * ({@link ApiMediaTypes#watchEvents}), each line as sent noted for {@link #answersSent()} (setup calls excluded).
     */
    private java.util.function.UnaryOperator<String> watchLines(ApiFrontServer.Head request) {
        URI uri = URI.create("http://server" + request.target());
        java.util.function.UnaryOperator<String> represent = ApiMediaTypes.watchEvents(honoured(request.header("Accept")),
                resourceOf(uri.getRawPath()), ApiMediaTypes.includeObject(query(uri.getRawQuery())));
        boolean setup = request.header(SETUP_HEADER) != null;
        return line -> {
            String sent = represent == null ? line : represent.apply(line);
            if (!setup) {
                answersSent.add(sent);
            }
            return sent;
        };
    }

    public ApiTestServer resetCounts() {
        counts.clear();
        requestLog.clear();
        requestAccepts.clear();
        answersSent.clear();
        return this;
    }

    /** Writes a kubeconfig with context {@value #CONTEXT} pointing at this server; returns the file. */
    public Path writeKubeconfig(Path file) {
        return writeKubeconfig(file, CONTEXT);
    }

    /** Writes a kubeconfig with one context named {@code contextName} pointing at this server. */
    public Path writeKubeconfig(Path file, String contextName) {
        return writeKubeconfig(file, contextName, url());
    }

    /**
     * Writes a kubeconfig with one context named {@code contextName} pointing at {@code server} (any test server:
     * a hand-written HttpServer too), with a bearer token; returns the file.
     */
    public static Path writeKubeconfig(Path file, String contextName, String server) {
        String yaml = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: %1$s
                  cluster:
                    server: %2$s
                users:
                - name: %1$s
                  user:
                    token: test-token-not-a-secret
                contexts:
                - name: %1$s
                  context:
                    cluster: %1$s
                    user: %1$s
                    namespace: default
                current-context: %1$s
                """.formatted(contextName, server);
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(file, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    @Override
    public void close() {
        front.close();
        bookmarks.shutdownNow();
        setupClient.close();
        mock.destroy();
    }

    /** One open watch: the CRUD mock's listener, wrapped so the server can expire it and send bookmarks. */
    private final class WatchSession extends io.fabric8.mockwebserver.http.WebSocketListener {
        private final io.fabric8.mockwebserver.http.WebSocketListener inner;
        private final String kind;
        private final String apiVersion;
        private final boolean allowBookmarks;
        private final boolean setup;
        private final long fromVersion;
        private volatile io.fabric8.mockwebserver.http.WebSocket socket;
        private volatile boolean open;
        private volatile java.util.concurrent.ScheduledFuture<?> bookmarking;
        private final java.util.concurrent.atomic.AtomicBoolean innerClosed =
                new java.util.concurrent.atomic.AtomicBoolean();

        WatchSession(io.fabric8.mockwebserver.http.WebSocketListener inner, String path, boolean allowBookmarks,
                     boolean setup, long fromVersion) {
            this.inner = inner;
            List<String> parts = afterGroupVersion(path);
            String resource = parts.isEmpty() ? "" : parts.get(parts.size() - 1);
            this.kind = KINDS_BY_RESOURCE.getOrDefault(resource, "Unknown");
            this.apiVersion = path.startsWith("/api/") ? "v1" : path.replaceFirst("^/apis/([^/]+/[^/]+)/.*$", "$1");
            this.allowBookmarks = allowBookmarks;
            this.setup = setup;
            this.fromVersion = fromVersion;
        }

        @Override
        public void onOpen(io.fabric8.mockwebserver.http.WebSocket ws, io.fabric8.mockwebserver.http.Response r) {
            socket = ws;
            open = true;
            watches.add(this);
            inner.onOpen(fromVersion < 0 ? ws : new SinceVersion(ws, fromVersion), r);
            if (allowBookmarks) {
                long every = Math.max(10, bookmarkEvery.toMillis());
                bookmarking = bookmarks.scheduleWithFixedDelay(this::bookmark, every, every,
                        java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        }

        private void bookmark() {
            if (!open) {
                return;
            }
            ObjectNode event = JSON.createObjectNode();
            event.put("type", "BOOKMARK");
            ObjectNode object = event.putObject("object");
            object.put("kind", kind);
            object.put("apiVersion", apiVersion);
            ObjectNode meta = object.putObject("metadata");
            meta.put("resourceVersion", Long.toString(maxResourceVersion.get()));
            socket.send(event.toString());
        }

        void expire() {
            if (!open) {
                return;
            }
            ObjectNode event = JSON.createObjectNode();
            event.put("type", "ERROR");
            ObjectNode st = event.putObject("object");
            st.put("kind", "Status");
            st.put("apiVersion", "v1");
            st.putObject("metadata");
            st.put("status", "Failure");
            st.put("message", "too old resource version");
            st.put("reason", "Expired");
            st.put("code", 410);
            socket.send(event.toString());
            socket.close(1000, "expired");
            gone();
            // on the caller's thread (never the mock's event loop): the test's next write finds it gone
            closeInnerNow(() -> inner.onClosed(socket, 1000, "expired"));
        }

        private void gone() {
            open = false;
            watches.remove(this);
            if (bookmarking != null) {
                bookmarking.cancel(false);
            }
        }

        @Override
        public void onMessage(io.fabric8.mockwebserver.http.WebSocket ws, String text) {
            inner.onMessage(ws, text);
        }

        @Override
        public void onClosing(io.fabric8.mockwebserver.http.WebSocket ws, int code, String reason) {
            gone();
            inner.onClosing(ws, code, reason);
        }

        /*
         * The CRUD mock's listener waits (up to a minute) for its event sender to finish when a watch closes, and is
         * called on the mock's event loop, which that sender needs: a watch closed while its first events are being
         * sent stalled the whole server. Its close is handed to a thread of its own.
         */
        @Override
        public void onClosed(io.fabric8.mockwebserver.http.WebSocket ws, int code, String reason) {
            gone();
            closeInnerLater(() -> inner.onClosed(ws, code, reason));
        }

        @Override
        public void onFailure(io.fabric8.mockwebserver.http.WebSocket ws, Throwable t,
                              io.fabric8.mockwebserver.http.Response r) {
            gone();
            closeInnerLater(() -> inner.onFailure(ws, t, r));
        }

        /*
         * The mock's listener, when closed, shuts its event sender down and only then leaves the dispatcher's set of
         * listeners. An event for a write that lands in between is refused by the stopped sender inside the
         * dispatcher, which then never answers that write: a test's DELETE timed out after 10 s right after
         * expireWatches(). So the listener is closed once, and writes wait until no close is under way.
         */
        private void closeInnerLater(Runnable close) {
            if (!innerClosed.compareAndSet(false, true)) {
                return;
            }
            closing.incrementAndGet();
            CLOSERS.execute(() -> {
                try {
                    close.run();
                } finally {
                    closing.decrementAndGet();
                }
            });
        }

        private void closeInnerNow(Runnable close) {
            if (innerClosed.compareAndSet(false, true)) {
                close.run();
            }
        }
    }

    /**
     * The CRUD mock opens every watch by sending each stored object as ADDED, whatever resourceVersion the client
     * asked to start from. A real server started from version V sends only what changed after V, so a client that
     * LISTs and then watches from the list's version does not get its whole list again. This drops ADDED events for
     * objects whose resourceVersion is not newer than V. Live events always carry a newer version (every write
     * bumps it), so only that opening replay is affected.
     */
    private static final class SinceVersion implements io.fabric8.mockwebserver.http.WebSocket {
        private final io.fabric8.mockwebserver.http.WebSocket inner;
        private final long from;

        SinceVersion(io.fabric8.mockwebserver.http.WebSocket inner, long from) {
            this.inner = inner;
            this.from = from;
        }

        @Override
        public RecordedRequest request() {
            return inner.request();
        }

        @Override
        public boolean send(String text) {
            // cheap test first: a Lease renewal stream is all MODIFIED events and is never parsed here
            if (text.contains("\"ADDED\"") && addedAtOrBefore(text)) {
                return true;
            }
            return inner.send(text);
        }

        private boolean addedAtOrBefore(String text) {
            try {
                JsonNode event = JSON.readTree(text);
                if (!"ADDED".equals(event.path("type").asString(""))) {
                    return false;
                }
                return Long.parseLong(event.path("object").path("metadata").path("resourceVersion").asString(""))
                        <= from;
            } catch (RuntimeException notNumberedOrNotJson) {
                return false;
            }
        }

        @Override
        public boolean send(byte[] bytes) {
            return inner.send(bytes);
        }

        @Override
        public boolean close(int code, String reason) {
            return inner.close(code, reason);
        }
    }

    /** Where the mock's watch listeners close (see WatchSession#onClosed). */
    private static final java.util.concurrent.ExecutorService CLOSERS =
            java.util.concurrent.Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "api-test-server-watch-close");
                t.setDaemon(true);
                return t;
            });

    /**
     * kube-apiserver's continue token: base64url (no padding) of {"v":"meta.k8s.io/v1","rv":REVISION,"start":KEY}, the
     * revision the first page was read at and the key the next page starts from (the last key plus a NUL byte), as
     * staging/src/k8s.io/apiserver/pkg/storage/continue.go EncodeContinue writes it. Keys here are namespace/name.
     */
    private record ContinueToken(long resourceVersion, String start) {

        String encode() {
            ObjectNode t = JSON.createObjectNode();
            t.put("v", "meta.k8s.io/v1");
            t.put("rv", resourceVersion);
            t.put("start", start);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(t.toString().getBytes(StandardCharsets.UTF_8));
        }

        /** The token, or null when it is not one this server wrote (a 400 BadRequest, as kube-apiserver answers). */
        static ContinueToken parse(String token) {
            try {
                JsonNode t = JSON.readTree(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8));
                if (!"meta.k8s.io/v1".equals(t.path("v").asString("")) || !t.path("rv").isIntegralNumber()
                        || t.path("rv").asLong() <= 0 || !t.path("start").isString()) {
                    return null;
                }
                return new ContinueToken(t.path("rv").asLong(), t.path("start").asString());
            } catch (RuntimeException e) {
                return null;
            }
        }
    }

    /** The list kind a LIST of {@code path} answers with ("NodeList"), or null when this server does not know it. */
    private static String listKind(String path, List<JsonNode> items) {
        String kind = KINDS_BY_RESOURCE.get(resourceOf(path));
        if (kind == null && !items.isEmpty()) {
            kind = items.get(0).path("kind").asString(null);
        }
        return kind == null ? null : kind + "List";
    }

    /** The group version of a collection path: "v1" for /api/v1/..., "apps/v1" for /apis/apps/v1/... */
    private static String groupVersion(String path) {
        String[] seg = path.replaceFirst("^/+", "").split("/");
        return "api".equals(seg[0]) && seg.length > 1 ? seg[1]
                : "apis".equals(seg[0]) && seg.length > 2 ? seg[1] + "/" + seg[2] : "v1";
    }

    /**
     * The kind behind each resource the code under test lists (for list kinds and bookmarks); management.cattle.io's
     * nodes are kind Node too. A resource missing here is still served while its LIST has items (their kind says).
     */
    private static final Map<String, String> KINDS_BY_RESOURCE = Map.ofEntries(
            Map.entry("nodes", "Node"), Map.entry("leases", "Lease"), Map.entry("secrets", "Secret"),
            Map.entry("csinodes", "CSINode"), Map.entry("endpointslices", "EndpointSlice"),
            Map.entry("daemonsets", "DaemonSet"), Map.entry("jobs", "Job"), Map.entry("pods", "Pod"),
            Map.entry("events", "Event"), Map.entry("namespaces", "Namespace"), Map.entry("configmaps", "ConfigMap"),
            Map.entry("servicel2statuses", "ServiceL2Status"), Map.entry("clusters", "Cluster"),
            Map.entry("machines", "Machine"), Map.entry("services", "Service"), Map.entry("endpoints", "Endpoints"),
            Map.entry("validatingadmissionpolicies", "ValidatingAdmissionPolicy"),
            Map.entry("validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding"),
            Map.entry("clusterpolicyreports", "ClusterPolicyReport"), Map.entry("policyreports", "PolicyReport"),
            Map.entry("clusterregistrationtokens", "ClusterRegistrationToken"));

    /** Notes the highest resourceVersion an answer carries (objects and lists), so lists and bookmarks can say it. */
    private void noteResourceVersion(MockResponse answer) {
        if (answer.getBody() == null || answer.getWebSocketListener() != null) {
            return;
        }
        try {
            String body = new String(answer.getBody().getBytes(), StandardCharsets.UTF_8);
            if (JSON.readTree(body) instanceof ObjectNode o) {
                bump(o.path("metadata").path("resourceVersion").asString(""));
                if (o.get("items") instanceof ArrayNode items) {
                    items.forEach(i -> bump(i.path("metadata").path("resourceVersion").asString("")));
                }
            }
        } catch (RuntimeException notJson) {
            // not an object answer: nothing to note
        }
    }

    private void bump(String rv) {
        try {
            long v = Long.parseLong(rv);
            maxResourceVersion.accumulateAndGet(v, Math::max);
        } catch (NumberFormatException ignored) {
            // empty or opaque: the mock only writes numbers
        }
    }

    /** Sits in front of the CRUD dispatcher and adds what a real API server does (see class javadoc). */
    /**
     * What fabric8's KubernetesMixedDispatcher does (an expectation queued for the request first, else the CRUD store),
     * over {@link LinearCrud}.
     */
    private static final class MixedDispatcher extends Dispatcher {
        private final Map<ServerRequest, Queue<ServerResponse>> responses;
        private final io.fabric8.mockwebserver.internal.MockDispatcher expectations;
        private final LinearCrud store = new LinearCrud();

        MixedDispatcher(Map<ServerRequest, Queue<ServerResponse>> responses) {
            this.responses = responses;
            this.expectations = new io.fabric8.mockwebserver.internal.MockDispatcher(responses);
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            Queue<ServerResponse> queued = responses.get(new io.fabric8.mockwebserver.internal.SimpleRequest(
                    io.fabric8.mockwebserver.dsl.HttpMethod.valueOf(request.getMethod()), request.getPath()));
            if (queued != null && !queued.isEmpty()) {
                return expectations.dispatch(request);
            }
            return store.dispatch(request);
        }
    }

    /**
     * fabric8's CRUD store with the same rules for an update's resourceVersion (new when anything changed) and
     * generation (+1 when anything outside metadata and status changed), decided by comparing the two objects. The
     * store's own implementation computes a JSON patch between them for that (zjsonpatch's JsonDiff), which is
     * quadratic in the number of list items that changed: replacing a 1,000-result report with a 2-result one took
     * 1 to 2 s of CPU in one request, more than the client's 10 s request timeout on a 2-core machine at load 25.
     */
    private static final class LinearCrud extends KubernetesCrudDispatcher {
        @Override
        public void touchResourceVersion(JsonNode current, JsonNode updated) {
            if (!java.util.Objects.equals(current, updated)) {
                ((ObjectNode) updated.get("metadata")).put("resourceVersion", String.valueOf(requestResourceVersion()));
            }
        }

        @Override
        public void touchGeneration(JsonNode current, JsonNode updated) {
            if (!outsideMetadataAndStatus(current).equals(outsideMetadataAndStatus(updated))) {
                ((ObjectNode) updated.get("metadata")).put("generation",
                        current.path("metadata").path("generation").asInt(0) + 1);
            }
        }

        private static Map<String, JsonNode> outsideMetadataAndStatus(JsonNode object) {
            Map<String, JsonNode> out = new HashMap<>();
            if (object != null) {
                for (var e : object.properties()) {
                    if (!e.getKey().equals("metadata") && !e.getKey().equals("status")) {
                        out.put(e.getKey(), e.getValue());
                    }
                }
            }
            return out;
        }
    }

    private final class RealisticDispatcher extends Dispatcher {
        private final MixedDispatcher crud;

        RealisticDispatcher(MixedDispatcher crud) {
            this.crud = crud;
        }

        /** Every answer carries a Date header, as Go's net/http adds to each kube-apiserver response. */
        @Override
        public MockResponse dispatch(RecordedRequest request) {
            MockResponse answer = dispatchUndated(request);
            if (answer.getHeaders().get("Date") == null) {
                answer.setHeader("Date", java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME
                        .format(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC)));
            }
            return answer;
        }

        private MockResponse dispatchUndated(RecordedRequest request) {
            URI uri = URI.create("http://server" + request.getPath());
            String path = uri.getRawPath();
            String method = request.getMethod().toUpperCase();
            boolean setup = request.getHeader(SETUP_HEADER) != null;
            if (!setup) {
                counts.computeIfAbsent(method + " " + path, k -> new AtomicInteger()).incrementAndGet();
                requestLog.add(method + " " + request.getPath());
                requestAccepts.add(method + " " + request.getPath() + " Accept: " + request.getHeader("Accept"));
                java.util.function.BiConsumer<String, String> listener = requestListener;
                if (listener != null) {
                    listener.accept(method + " " + request.getPath(), request.getBody() == null ? ""
                            : new String(request.getBody().getBytes(), StandardCharsets.UTF_8));
                }
            }
            if (!setup && requiredToken != null
                    && !("Bearer " + requiredToken).equals(request.getHeader("Authorization"))) {
                return status(401, "Unauthorized", "Unauthorized");
            }
            for (Racer r : racers) {
                if (!setup && r.method().equals(method) && r.path().equals(path) && racers.remove(r)) {
                    // straight into the store: an HTTP call from here would wait for this very dispatch
                    crud.dispatch(new RecordedRequest(request.getHttpVersion(),
                            io.fabric8.mockwebserver.dsl.HttpMethod.PATCH, path, io.fabric8.mockwebserver.http.Headers
                            .builder().add("Content-Type", "application/merge-patch+json").build(),
                            new io.fabric8.mockwebserver.http.Buffer(r.mergePatch().getBytes(StandardCharsets.UTF_8))));
                    break; // one write in between per request: racers given for the same call take turns
                }
            }
            for (Failure f : failures) {
                if (!setup && f.method().equals(method) && f.path().equals(path)
                        && f.seen().getAndIncrement() >= f.succeedFirst()) {
                    return status(f.code(), reasonOf(f.code()), "injected failure for " + method + " " + path);
                }
            }
            if ("/version".equals(path)) {
                return json(200, versionJson());
            }
            for (String prefix : unserved) {
                if (path.equals(prefix) || path.startsWith(prefix + "/")) {
                    return status(404, "NotFound", "the server could not find the requested resource");
                }
            }
            Map<String, String> query = query(uri.getRawQuery());
            if ("GET".equals(method) && isList(path) && !isWatch(query)) {
                MockResponse answer = list(request, path, query);
                noteResourceVersion(answer);
                return sent(setup, ApiMediaTypes.negotiate(honoured(request.getHeader("Accept")), true, resourceOf(path),
                        ApiMediaTypes.includeObject(query), answer, printerColumns.get(resourceOf(path))));
            }
            if ("GET".equals(method) && isWatch(query)) {
                return watch(request, path, query, setup);
            }
            if ("DELETE".equals(method)) {
                MockResponse refused = preconditionFailed(request, path);
                if (refused != null) {
                    return refused;
                }
            }
            if ("POST".equals(method) || "PUT".equals(method)) {
                byte[] body = request.getBody() == null ? new byte[0] : request.getBody().readByteArray();
                request = new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
                        request.getHeaders(), new io.fabric8.mockwebserver.http.Buffer(body));
                MockResponse invalid = invalid(path, body);
                if (invalid != null) {
                    return invalid;
                }
                if ("All".equals(query.get("dryRun"))) {
                    return dryRun(request, method, path, body);
                }
            }
            MockResponse refused = admission(method, path, request);
            if (refused != null) {
                return refused;
            }
            byte[] patchBody = "PATCH".equals(method) && request.getBody() != null ? request.getBody().getBytes()
                    : null;
            MockResponse stalePatch = patchBody == null ? null : stalePatch(request, path, patchBody);
            if (stalePatch != null) {
                return stalePatch;
            }
            MockResponse answer = crud.dispatch(request);
            if ("PATCH".equals(method) && answer.code() == 202) {
                // the CRUD mock answers 202 Accepted; kube-apiserver answers a PATCH with 200 and the object
                answer.setResponseCode(200);
            }
            if (patchBody != null && answer.code() == 200 && String.valueOf(request.getHeader("Content-Type"))
                    .startsWith("application/merge-patch+json")) {
                answer = nullsRemoved(request, path, patchBody, answer);
            }
            noteResourceVersion(answer);
            if ("GET".equals(method) || "DELETE".equals(method)) {
                // a named GET or DELETE: the representation the client asked for (a Table, PartialObjectMetadata,
                // the object), as kube-apiserver negotiates every answer that carries an object
                return sent(setup, ApiMediaTypes.negotiate(honoured(request.getHeader("Accept")), false, resourceOfObject(path),
                        ApiMediaTypes.includeObject(query), answer, printerColumns.get(resourceOfObject(path))));
            }
            return answer;
        }

        /**
         * A merge patch that carries {@code metadata.resourceVersion} is refused with 409 Conflict when the stored
         * object has moved on, as kube-apiserver does: the patched object keeps the version the patch names, and the
         * update's optimistic-concurrency check compares it with the stored one (apiserver
         * {@code endpoints/handlers/patch.go}, then {@code registry/generic/registry/store.go} Update). The CRUD mock
         * alone applies it.
         */
        private MockResponse stalePatch(RecordedRequest request, String path, byte[] patch) {
            String sent;
            try {
                sent = JSON.readTree(patch).path("metadata").path("resourceVersion").asString("");
            } catch (RuntimeException notJson) {
                return null;
            }
            if (sent.isEmpty() || !String.valueOf(request.getHeader("Content-Type"))
                    .startsWith("application/merge-patch+json")) {
                return null;
            }
            JsonNode stored = stored(path, request);
            String now = stored == null ? "" : stored.path("metadata").path("resourceVersion").asString("");
            if (stored == null || sent.equals(now)) {
                return null;
            }
            return status(409, "Conflict", "Operation cannot be fulfilled on " + resourceOfObject(path) + " \""
                    + stored.path("metadata").path("name").asString("") + "\": the object has been modified; please"
                    + " apply your changes to the latest version and try again");
        }

        /**
         * A JSON merge patch's null deletes the key (RFC 7386, as kube-apiserver applies it), where the CRUD mock
         * stores the null. When the patch carried a null, the stored object is written again without its null
         * fields (straight into the store, one more resourceVersion) and that is the PATCH's answer, so the answer
         * and the store agree as they do on a real server.
         */
        private MockResponse nullsRemoved(RecordedRequest request, String path, byte[] patch, MockResponse answer) {
            try {
                if (!hasNull(JSON.readTree(patch))) {
                    return answer;
                }
                JsonNode stored = JSON.readTree(answer.getBody().readUtf8());
                stripNulls(stored);
                MockResponse put = crud.dispatch(new RecordedRequest(request.getHttpVersion(),
                        io.fabric8.mockwebserver.dsl.HttpMethod.PUT, path, io.fabric8.mockwebserver.http.Headers
                        .builder().add("Content-Type", "application/json").build(),
                        new io.fabric8.mockwebserver.http.Buffer(JSON.writeValueAsBytes(stored))));
                if (put.code() == 202 || put.code() == 201) {
                    put.setResponseCode(200);
                }
                return put;
            } catch (RuntimeException e) {
                throw new IllegalStateException("the test server could not apply a merge patch's null on " + path, e);
            }
        }

        private static boolean hasNull(JsonNode n) {
            if (n.isNull()) {
                return true;
            }
            for (JsonNode child : n) {
                if (hasNull(child)) {
                    return true;
                }
            }
            return false;
        }

        private static void stripNulls(JsonNode n) {
            if (n instanceof tools.jackson.databind.node.ObjectNode o) {
                List<String> gone = new ArrayList<>();
                o.properties().forEach(e -> {
                    if (e.getValue().isNull()) {
                        gone.add(e.getKey());
                    } else {
                        stripNulls(e.getValue());
                    }
                });
                gone.forEach(o::remove);
            } else if (n.isArray()) {
                n.forEach(ApiTestServer.RealisticDispatcher::stripNulls);
            }
        }

        /**
         * A DELETE whose DeleteOptions carry preconditions (uid, resourceVersion) that the stored object does not meet
         * answers 409 Conflict, as kube-apiserver does (apiserver pkg/storage/interfaces.go, Preconditions.Check); the
         * mock alone deletes whatever has that name.
         */
        private MockResponse preconditionFailed(RecordedRequest request, String path) {
            byte[] body = request.getBody() == null ? new byte[0] : request.getBody().getBytes();
            if (body.length == 0) {
                return null;
            }
            JsonNode preconditions;
            try {
                preconditions = JSON.readTree(body).path("preconditions");
            } catch (RuntimeException e) {
                return null;
            }
            if (!preconditions.isObject()) {
                return null;
            }
            MockResponse stored = crud.dispatch(new RecordedRequest(request.getHttpVersion(),
                    io.fabric8.mockwebserver.dsl.HttpMethod.GET, path, request.getHeaders(),
                    new io.fabric8.mockwebserver.http.Buffer()));
            if (stored.code() != 200 || stored.getBody() == null) {
                return null; // NotFound: the DELETE itself answers it
            }
            JsonNode meta = JSON.readTree(stored.getBody().getBytes()).path("metadata");
            for (String[] field : new String[][]{{"uid", "UID"}, {"resourceVersion", "ResourceVersion"}}) {
                JsonNode wanted = preconditions.path(field[0]);
                if (wanted.isString() && !wanted.asString().equals(meta.path(field[0]).asString())) {
                    return status(409, "Conflict", "Operation cannot be fulfilled on " + resourceOfObject(path) + " \""
                            + meta.path("name").asString() + "\": Precondition failed: " + field[1] + " in precondition: "
                            + wanted.asString() + ", " + field[1] + " in object meta: " + meta.path(field[0]).asString());
                }
            }
            return null;
        }

        /** 422 for what kube-apiserver's validation refuses and nodegate depends on: a ConfigMap over 1 MiB. */
        private MockResponse invalid(String path, byte[] body) {
            if (!path.contains("/configmaps")) {
                return null;
            }
            try {
                JsonNode cm = JSON.readTree(body);
                long total = 0;
                for (String field : List.of("data", "binaryData")) {
                    if (cm.get(field) instanceof ObjectNode values) {
                        for (var e : values.properties()) {
                            total += e.getValue().asString("").getBytes(StandardCharsets.UTF_8).length;
                        }
                    }
                }
                if (total > 1024 * 1024) {
                    String name = cm.path("metadata").path("name").asString("");
                    MockResponse r = status(422, "Invalid", "ConfigMap \"" + name + "\" is invalid: []: Too long: "
                            + "may not be more than 1048576 bytes");
                    return r;
                }
            } catch (RuntimeException notJson) {
                // not a JSON object: the CRUD mock answers it
            }
            return null;
        }

        /** A dry-run POST or PUT: checked as the write would be, answered with the object, nothing stored. */
        private MockResponse dryRun(RecordedRequest request, String method, String path, byte[] body) {
            ObjectNode object;
            try {
                object = (ObjectNode) JSON.readTree(body);
            } catch (RuntimeException e) {
                return status(400, "BadRequest", "dry run: the body is not a JSON object");
            }
            String name = object.path("metadata").path("name").asString("");
            String objectPath = "POST".equals(method) ? path + "/" + name : path;
            MockResponse stored = crud.dispatch(new RecordedRequest(request.getHttpVersion(),
                    io.fabric8.mockwebserver.dsl.HttpMethod.GET, objectPath, request.getHeaders(),
                    new io.fabric8.mockwebserver.http.Buffer()));
            // admission reviews a dry run as it would the write: a create before storage finds the name taken
            Admission admission = admissions.get("POST".equals(method) ? path
                    : objectPath.substring(0, objectPath.lastIndexOf('/')));
            if ("POST".equals(method)) {
                String denied = admission == null ? null : admission.review(null, object);
                if (denied != null) {
                    return status(422, "Invalid", denied);
                }
                if (stored.code() == 200) {
                    return status(409, "AlreadyExists", "\"" + name + "\" already exists");
                }
                return json(201, object.toString());
            }
            if (stored.code() == 404) {
                return status(404, "NotFound", "\"" + name + "\" not found");
            }
            JsonNode storedObject = JSON.readTree(stored.getBody().readUtf8());
            String current = storedObject.path("metadata").path("resourceVersion").asString("");
            String sent = object.path("metadata").path("resourceVersion").asString("");
            if (!sent.isEmpty() && !sent.equals(current)) {
                return status(409, "Conflict", "Operation cannot be fulfilled on \"" + name + "\": the object has"
                        + " been modified; please apply your changes to the latest version and try again");
            }
            String denied = admission == null ? null : admission.review(storedObject, object);
            if (denied != null) {
                return status(422, "Invalid", denied);
            }
            return json(200, object.toString());
        }

        /**
         * A PUT with a stale metadata.resourceVersion answers 409 Conflict before anything validates it, as the real
         * server's optimistic concurrency does (the CRUD mock checks it on the main resource only, and after what
         * runs here); a POST or PUT denied by an {@link #admit} review answers 422 Invalid.
         */
        private MockResponse admission(String method, String path, RecordedRequest request) {
            if (!"PUT".equals(method) && !"POST".equals(method)) {
                return null;
            }
            JsonNode body;
            try {
                // getBytes reads without consuming: the CRUD mock still gets the whole body after this
                body = request.getBody() == null ? null
                        : JSON.readTree(new String(request.getBody().getBytes(), StandardCharsets.UTF_8));
            } catch (RuntimeException notJson) {
                return null;
            }
            if (body == null || !body.isObject()) {
                return null;
            }
            boolean status = path.endsWith("/status");
            String objectPath = status ? path.substring(0, path.length() - "/status".length()) : path;
            String collection = "POST".equals(method) ? path : objectPath.substring(0, objectPath.lastIndexOf('/'));
            Interleave interleave = interleaves.get(collection);
            if (interleave != null) {
                interleave.before(method, path, body, store(request));
            }
            if ("PUT".equals(method)) {
                // kube-apiserver compares the resourceVersion before it validates (registry/generic/registry/store.go,
                // Update: a conflict is answered before the strategy's validation runs)
                JsonNode stored = stored(objectPath, request);
                String sent = body.path("metadata").path("resourceVersion").asString("");
                String now = stored == null ? "" : stored.path("metadata").path("resourceVersion").asString("");
                if (stored != null && !sent.isEmpty() && !sent.equals(now)) {
                    return status(409, "Conflict", "Operation cannot be fulfilled on " + resourceOfObject(objectPath)
                            + " \"" + body.path("metadata").path("name").asString("") + "\": the object has been "
                            + "modified; please apply your changes to the latest version and try again");
                }
            }
            Admission admission = admissions.get(collection);
            if (admission != null) {
                String denied = admission.review("PUT".equals(method) ? stored(objectPath, request) : null, body);
                if (denied != null) {
                    return status(422, "Invalid", denied);
                }
            }
            return null;
        }

        private Store store(RecordedRequest request) {
            return new Store() {
                @Override
                public JsonNode get(String path) {
                    return stored(path, request);
                }

                @Override
                public void put(String path, JsonNode object) {
                    MockResponse r = crud.dispatch(new RecordedRequest(request.getHttpVersion(),
                            io.fabric8.mockwebserver.dsl.HttpMethod.PUT, path, request.getHeaders(),
                            new io.fabric8.mockwebserver.http.Buffer(object.toString().getBytes(StandardCharsets.UTF_8))));
                    if (r.code() != 200) {
                        throw new IllegalStateException("interleaved PUT " + path + " answered " + r.code());
                    }
                }
            };
        }

        /** The object stored at a path now, or null. */
        private JsonNode stored(String objectPath, RecordedRequest request) {
            MockResponse got = crud.dispatch(new RecordedRequest(request.getHttpVersion(),
                    io.fabric8.mockwebserver.dsl.HttpMethod.GET, objectPath, request.getHeaders(),
                    new io.fabric8.mockwebserver.http.Buffer()));
            if (got.code() != 200 || got.getBody() == null) {
                return null;
            }
            return JSON.readTree(new String(got.getBody().getBytes(), StandardCharsets.UTF_8));
        }

        /** Notes the body of an answer to the code under test (setup calls excluded), for {@link #answersSent()}. */
        private MockResponse sent(boolean setup, MockResponse answer) {
            if (!setup && answer.getBody() != null) {
                answersSent.add(new String(answer.getBody().getBytes(), StandardCharsets.UTF_8));
            }
            return answer;
        }

        private MockResponse watch(RecordedRequest request, String path, Map<String, String> query, boolean setup) {
            String from = query.get("resourceVersion");
            long fromVersion = -1;
            if (from != null && !from.isEmpty() && !"0".equals(from)) {
                try {
                    fromVersion = Long.parseLong(from);
                    if (fromVersion < expiredBelow) {
                        return status(410, "Expired", "too old resource version: " + from + " ("
                                + expiredBelow + ")");
                    }
                } catch (NumberFormatException e) {
                    return status(400, "BadRequest", "resourceVersion is not valid: " + from);
                }
            }
            if (!"true".equals(query.get("watch"))) {
                // watch=1: the CRUD mock recognises only the literal "watch=true"
                Map<String, String> normalized = new LinkedHashMap<>(query);
                normalized.put("watch", "true");
                request = new RecordedRequest(request.getHttpVersion(), request.method(), path + encode(normalized),
                        request.getHeaders(), request.getBody());
            }
            MockResponse answer = crud.dispatch(request);
            if (answer.getWebSocketListener() == null) {
                return answer;
            }
            return answer.withWebSocketUpgrade(new WatchSession(answer.getWebSocketListener(), path,
                    "true".equals(query.get("allowWatchBookmarks")), setup, fromVersion));
        }

        private MockResponse list(RecordedRequest request, String path, Map<String, String> query) {
            Predicate<JsonNode> fieldFilter;
            Predicate<JsonNode> labelFilter;
            try {
                fieldFilter = Selectors.fields(query.get("fieldSelector"), resourceOf(path));
                labelFilter = Selectors.labels(query.get("labelSelector"));
            } catch (IllegalArgumentException e) {
                return status(400, "BadRequest", e.getMessage());
            }
            Map<String, String> rest = new LinkedHashMap<>(query);
            for (String handled : List.of("limit", "continue", "fieldSelector", "labelSelector")) {
                rest.remove(handled);
            }
            RecordedRequest plain = new RecordedRequest(request.getHttpVersion(), request.method(),
                    path + encode(rest), request.getHeaders(), request.getBody());
            MockResponse answer = crud.dispatch(plain);
            if (answer.code() != 200) {
                return answer;
            }
            String body = answer.getBody() == null ? "" : answer.getBody().readUtf8();
            ObjectNode list;
            try {
                if (!(JSON.readTree(body) instanceof ObjectNode parsed)) {
                    return json(answer.code(), body);
                }
                list = parsed;
            } catch (RuntimeException notJson) {
                // an expect() answer that is not a list (e.g. garbage to test the client): pass it through
                return new MockResponse().setResponseCode(answer.code()).setHeaders(answer.getHeaders()).setBody(body);
            }
            List<JsonNode> items = new ArrayList<>();
            if (list.get("items") instanceof ArrayNode array) {
                array.forEach(items::add);
            }
            items.removeIf(fieldFilter.and(labelFilter).negate());
            items.sort(Comparator.comparing(ApiTestServer::key));
            String after = null;
            if (query.get("continue") != null && !query.get("continue").isEmpty()) {
                after = query.get("continue");
            }
            ContinueToken token = null;
            if (after != null) {
                token = ContinueToken.parse(after);
                if (token == null) {
                    return status(400, "BadRequest", "continue key is not valid: " + after);
                }
                if (token.resourceVersion() < expiredBelow) {
                    // etcd compacted the snapshot the pages are read at (store.go GetList: 410 with an inconsistent
                    // continue token; nodegate never uses that one, so it is not sent here)
                    return status(410, "Expired", "The provided continue parameter is too old to display a "
                            + "consistent list result. You can start a new list without the continue parameter.");
                }
                final String start = token.start();
                items.removeIf(i -> key(i).compareTo(start) < 0);
            }
            int limit = Integer.MAX_VALUE;
            if (query.get("limit") != null) {
                try {
                    long requested = Long.parseLong(query.get("limit"));
                    limit = requested <= 0 ? Integer.MAX_VALUE : (int) Math.min(requested, Integer.MAX_VALUE);
                } catch (NumberFormatException e) {
                    return status(400, "BadRequest", "limit is not a number: " + query.get("limit"));
                }
            }
            List<JsonNode> page = items.subList(0, Math.min(limit, items.size()));
            ObjectNode meta = list.get("metadata") instanceof ObjectNode m ? m : list.putObject("metadata");
            long listVersion = maxResourceVersion.get();
            for (JsonNode i : items) {
                try {
                    listVersion = Math.max(listVersion, Long.parseLong(i.path("metadata").path("resourceVersion")
                            .asString("0")));
                } catch (NumberFormatException ignored) {
                    // opaque versions are not compared
                }
            }
            // a continued LIST is read at the snapshot its token names: every page carries the first page's version
            if (token != null) {
                listVersion = token.resourceVersion();
            }
            String kind = listKind(path, items);
            if (kind == null) {
                return status(500, "InternalError", "ApiTestServer does not know the kind of " + resourceOf(path)
                        + ": add it to KINDS_BY_RESOURCE (an empty LIST must still say its kind)");
            }
            // kube-apiserver answers a LIST with the list kind in the collection's group version (NodeList, v1),
            // never kubectl's "List" that the CRUD mock writes
            ObjectNode typed = JSON.createObjectNode();
            typed.put("kind", kind);
            typed.put("apiVersion", groupVersion(path));
            typed.set("metadata", meta);
            meta.remove("selfLink");
            meta.put("resourceVersion", Long.toString(listVersion));
            meta.remove("continue");
            meta.remove("remainingItemCount");
            if (page.size() < items.size()) {
                meta.put("continue", new ContinueToken(listVersion, key(page.get(page.size() - 1)) + "\u0000").encode());
                meta.put("remainingItemCount", items.size() - page.size());
            }
            ArrayNode out = typed.putArray("items");
            page.forEach(out::add);
            return json(200, typed.toString());
        }

        private String versionJson() {
            String v = gitVersion;
            String major = "1";
            String minor = "0";
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^v?(\\d+)\\.(\\d+)").matcher(v);
            if (m.find()) {
                major = m.group(1);
                minor = m.group(2);
            }
            ObjectNode o = JSON.createObjectNode();
            o.put("major", major);
            o.put("minor", minor);
            o.put("gitVersion", v);
            o.put("gitCommit", "0000000000000000000000000000000000000000");
            o.put("gitTreeState", "clean");
            o.put("buildDate", "2026-01-01T00:00:00Z");
            o.put("goVersion", "go1.24.0");
            o.put("compiler", "gc");
            o.put("platform", "linux/amd64");
            return o.toString();
        }
    }

    /** Path of a collection: /api/v1/R, /api/v1/namespaces/N/R, /apis/G/V/R, /apis/G/V/namespaces/N/R. */
    /** {@code watch=true} or {@code watch=1} (kube-apiserver parses the flag as a Go bool). */
    static boolean isWatch(Map<String, String> query) {
        String watch = query.get("watch");
        return "true".equals(watch) || "1".equals(watch);
    }

    static boolean isList(String path) {
        List<String> rest = afterGroupVersion(path);
        if (rest == null) {
            return false;
        }
        return rest.size() == 1 || (rest.size() == 3 && "namespaces".equals(rest.get(0)));
    }

    /** The resource of a named object's path (/api/v1/namespaces/N/secrets/NAME: secrets). */
    private static String resourceOfObject(String path) {
        List<String> rest = afterGroupVersion(path);
        return rest == null || rest.size() < 2 ? "" : rest.get(rest.size() - 2);
    }

    private static String resourceOf(String path) {
        List<String> rest = afterGroupVersion(path);
        return rest == null || rest.isEmpty() ? "" : rest.get(rest.size() - 1);
    }

    private static List<String> afterGroupVersion(String path) {
        List<String> seg = new ArrayList<>();
        for (String s : path.split("/")) {
            if (!s.isEmpty()) {
                seg.add(s);
            }
        }
        if (seg.size() >= 2 && "api".equals(seg.get(0))) {
            return seg.subList(2, seg.size());
        }
        if (seg.size() >= 3 && "apis".equals(seg.get(0))) {
            return seg.subList(3, seg.size());
        }
        return null;
    }

    static String key(JsonNode item) {
        JsonNode meta = item.get("metadata");
        String ns = meta == null || meta.get("namespace") == null ? "" : meta.get("namespace").asString();
        String name = meta == null || meta.get("name") == null ? "" : meta.get("name").asString();
        return ns + "/" + name;
    }

    private static Map<String, String> query(String rawQuery) {
        Map<String, String> q = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return q;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            q.put(k, v);
        }
        return q;
    }

    private static String encode(Map<String, String> q) {
        if (q.isEmpty()) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        q.forEach((k, v) -> parts.add(URLEncoder.encode(k, StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(v, StandardCharsets.UTF_8)));
        return "?" + String.join("&", parts);
    }

    private static MockResponse json(int code, String body) {
        return new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(body);
    }

    private static MockResponse status(int code, String reason, String message) {
        ObjectNode s = JSON.createObjectNode();
        s.put("kind", "Status");
        s.put("apiVersion", "v1");
        s.putObject("metadata");
        s.put("status", "Failure");
        s.put("message", message);
        s.put("reason", reason);
        s.put("code", code);
        return json(code, s.toString());
    }

    private static String reasonOf(int code) {
        return switch (code) {
            case 400 -> "BadRequest";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 409 -> "Conflict";
            case 410 -> "Expired";
            case 429 -> "TooManyRequests";
            case 500 -> "InternalError";
            case 503 -> "ServiceUnavailable";
            case 504 -> "Timeout";
            default -> "Unknown";
        };
    }

    /** Field and label selector evaluation over JSON items. */
    static final class Selectors {
        private Selectors() {
        }

        static Predicate<JsonNode> fields(String selector, String resource) {
            Predicate<JsonNode> all = i -> true;
            if (selector == null || selector.isBlank()) {
                return all;
            }
            for (String term : selector.split(",")) {
                String t = term.trim();
                boolean negate = t.contains("!=");
                String[] kv = negate ? t.split("!=", 2) : t.split("==?", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("invalid field selector: " + t);
                }
                String field = kv[0].trim();
                String value = kv[1].trim();
                java.util.function.Function<JsonNode, String> getter = switch (field) {
                    case "metadata.name" -> i -> text(i, "metadata", "name");
                    case "metadata.namespace" -> i -> text(i, "metadata", "namespace");
                    case "spec.nodeName" -> {
                        if (!"pods".equals(resource)) {
                            throw new IllegalArgumentException("field label not supported: " + field);
                        }
                        yield i -> text(i, "spec", "nodeName");
                    }
                    // Secrets are selectable by type (kubernetes pkg/registry/core/secret/strategy.go,
                    // SelectableFields): `k3s token list` asks type=bootstrap.kubernetes.io/token
                    case "type" -> {
                        if (!"secrets".equals(resource)) {
                            throw new IllegalArgumentException("field label not supported: " + field);
                        }
                        yield i -> i.path("type").isString() ? i.path("type").asString() : null;
                    }
                    default -> throw new IllegalArgumentException("field label not supported: " + field);
                };
                Predicate<JsonNode> p = i -> value.equals(getter.apply(i) == null ? "" : getter.apply(i));
                all = all.and(negate ? p.negate() : p);
            }
            return all;
        }

        static Predicate<JsonNode> labels(String selector) {
            Predicate<JsonNode> all = i -> true;
            if (selector == null || selector.isBlank()) {
                return all;
            }
            for (String term : splitTerms(selector)) {
                all = all.and(labelTerm(term.trim()));
            }
            return all;
        }

        private static Predicate<JsonNode> labelTerm(String t) {
            java.util.regex.Matcher set = java.util.regex.Pattern
                    .compile("^([^\\s!=]+)\\s+(in|notin)\\s+\\((.*)\\)$").matcher(t);
            if (set.matches()) {
                String key = set.group(1);
                List<String> values = new ArrayList<>();
                for (String v : set.group(3).split(",")) {
                    values.add(v.trim());
                }
                boolean in = "in".equals(set.group(2));
                return i -> {
                    String v = label(i, key);
                    return in ? v != null && values.contains(v) : v == null || !values.contains(v);
                };
            }
            if (t.startsWith("!")) {
                String key = t.substring(1).trim();
                return i -> label(i, key) == null;
            }
            if (t.contains("!=")) {
                String[] kv = t.split("!=", 2);
                return i -> !kv[1].trim().equals(label(i, kv[0].trim()));
            }
            if (t.contains("=")) {
                String[] kv = t.split("==?", 2);
                return i -> kv[1].trim().equals(label(i, kv[0].trim()));
            }
            if (t.isEmpty() || t.contains(" ")) {
                throw new IllegalArgumentException("invalid label selector term: " + t);
            }
            return i -> label(i, t) != null;
        }

        private static List<String> splitTerms(String selector) {
            List<String> terms = new ArrayList<>();
            int depth = 0;
            StringBuilder cur = new StringBuilder();
            for (char c : selector.toCharArray()) {
                if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                }
                if (c == ',' && depth == 0) {
                    terms.add(cur.toString());
                    cur.setLength(0);
                } else {
                    cur.append(c);
                }
            }
            terms.add(cur.toString());
            return terms;
        }

        private static String label(JsonNode item, String key) {
            JsonNode labels = item.path("metadata").path("labels");
            JsonNode v = labels.get(key);
            return v == null || v.isNull() ? null : v.asString();
        }

        private static String text(JsonNode item, String a, String b) {
            JsonNode v = item.path(a).get(b);
            return v == null || v.isNull() ? null : v.asString();
        }
    }
}
