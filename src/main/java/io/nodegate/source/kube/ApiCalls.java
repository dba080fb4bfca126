package io.nodegate.source.kube;

import io.nodegate.time.Durations;

import java.time.Duration;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.CollectionException;
import io.nodegate.source.json.JsonReadException;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.MetadataOnly;
import io.nodegate.source.json.Plain;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The single get/list layer every API read goes through (the live source, the lifecycle's ApiReader, probe): one
 * pagination rule, one rule for what NotFound means, one wording for failures. Reads go over {@link ApiHttp}
 * (HttpURLConnection, a total deadline per request); no fabric8 client is built for them. The fabric8 client of
 * the connection ({@link #client()}, built on first use) is only for writes and watches, whose calls still get the
 * same deadline and wording through {@link #call}.
 *
 * <p>Pagination: {@code limit} per page plus the continue token, until the server sends none; a repeated token or
 * more than {@value #MAX_PAGES} pages fails the read instead of looping. Failures: any error (connection refused,
 * timeout, 401/403/429/5xx, unparsable answer, an item without a name) raises {@link CollectionException} naming
 * the call and the server. Only a 404 is different: on a named GET it is absence ({@link Optional#empty()}), on a
 * LIST it raises {@link NotFound} (a subclass, so callers that treat every failure alike still fail), which only
 * kinds whose absence is legitimate ({@link ReadKind.Presence#OPTIONAL_API}) turn into "absent".
 *
 * <p>A LIST answer is believed only when every page is what kube-apiserver sends ({@link ListPages}): the list kind
 * asked for, a {@code metadata.resourceVersion}, and the first page's resourceVersion on every page. An empty 200
 * from a proxy or cache ({@code {"kind":"List","metadata":{},"items":[]}}) is a broken answer, never "0 found".
 */
public final class ApiCalls {

    public static final long PAGE_SIZE = 500;
    static final int MAX_PAGES = 10_000;
    /** At most this much of an error answer is read for its message. */
    private static final int ERROR_BODY_LIMIT = 64 * 1024;

    private final KubeConnection connection;
    private final ApiHttp http;
    private final String server;
    private final Duration requestTimeout;
    private final long pageSize;
    private final int maxPages;
    private final LastServerAsked lastAsked;

    public ApiCalls(KubeConnection connection) {
        this(connection, PAGE_SIZE);
    }

    public ApiCalls(KubeConnection connection, long pageSize) {
        this(connection, pageSize, MAX_PAGES);
    }

    /**
     * @param maxPages the most pages one LIST may take before it is a broken answer ({@value #MAX_PAGES} in
     *                 production; tests give a small cap so a server that never ends is stopped in milliseconds)
     */
    ApiCalls(KubeConnection connection, long pageSize, int maxPages) {
        if (maxPages < 1) {
            throw new IllegalArgumentException("maxPages must be at least 1, got " + maxPages);
        }
        this.maxPages = maxPages;
        this.connection = connection;
        this.http = connection.http();
        this.server = connection.server();
        this.requestTimeout = connection.requestTimeout();
        this.pageSize = pageSize;
        this.lastAsked = connection.lastAsked();
    }

    /**
     * For a client built elsewhere (tests, the watch): reads go to its server with its token, writes use it. Calls
     * are recorded in a {@link LastServerAsked} of this connection's own, which no overall deadline reads: a command
     * that wants its deadline message to name the server opens its connection with the command's (see
     * {@link KubeConnection#wrapping(KubernetesClient, Duration, LastServerAsked)}). The watch builds its readers
     * this way today; it is being reworked separately and will take the command's one then.
     */
    public static ApiCalls of(KubernetesClient client) {
        return new ApiCalls(KubeConnection.wrapping(client));
    }

    /** Like {@link #of(KubernetesClient)}, with this request timeout for every call. */
    public ApiCalls(KubernetesClient client, Duration requestTimeout) {
        this(KubeConnection.wrapping(client, requestTimeout), PAGE_SIZE);
    }

    /** The fabric8 client for writes and watches (built on first use). */
    public KubernetesClient client() {
        return connection.client();
    }

    public KubeConnection connection() {
        return connection;
    }

    /** API server URL without trailing slash. */
    public String server() {
        return server;
    }

    /** A LIST answered 404: the resource type (or namespace) does not exist on this server. */
    public static final class NotFound extends CollectionException {
        NotFound(String message, Throwable cause) {
            super(message, cause);
        }
    }

    // ---- lean reads ---------------------------------------------------------------------------------------------

    /** Every object of one row of the table, trimmed, each through {@code map} as its page arrives. */
    public <T extends HasMetadata, R> List<R> list(ReadKind<T, ?> kind, Function<? super T, R> map) {
        return listAll(kind.listWhat(), collectionPath(kind.type(), kind.namespace()), kind.type(),
                kind.labelSelector(), null, t -> map.apply(kind.trim(t)));
    }

    /**
     * The API path of a collection: {@code /api/v1/nodes}, {@code /apis/coordination.k8s.io/v1/namespaces/NS/leases};
     * {@code namespace} null for a cluster-scoped type or all namespaces.
     */
    public static String collectionPath(Class<? extends HasMetadata> type, String namespace) {
        return ApiResource.of(type).collectionPath(namespace);
    }

    /**
     * Every page of one LIST of {@code collectionPath}; each item goes through {@code map} as its page arrives, then
     * the page is dropped.
     *
     * @param labelSelector a label selector, or null
     * @param fieldSelector a field selector, or null
     * @throws NotFound           on a 404 answer
     * @throws CollectionException on any other failure or a broken answer
     */
    public <T extends HasMetadata, R> List<R> listAll(String what, String collectionPath, Class<T> type,
            String labelSelector, String fieldSelector, Function<? super T, R> map) {
        if (type == GenericKubernetesResource.class) {
            throw new IllegalArgumentException("a GenericKubernetesResource LIST must say its items' kind: use "
                    + "listAll(what, path, type, itemKind, ...)");
        }
        return listAll(what, collectionPath, type, ApiResource.of(type).kind(), labelSelector, fieldSelector, map);
    }

    /**
     * As {@link #listAll(String, String, Class, String, String, Function)}, for items whose kind the type does not
     * say (a {@link GenericKubernetesResource} of a custom resource: {@code itemKind} "Node" of
     * management.cattle.io/v3).
     */
    public <T extends HasMetadata, R> List<R> listAll(String what, String collectionPath, Class<T> type,
            String itemKind, String labelSelector, String fieldSelector, Function<? super T, R> map) {
        Class<? extends KubernetesResourceList<T>> listType = listType(type);
        List<R> all = new ArrayList<>();
        ListPages pages = new ListPages(what, collectionPath, itemKind, false);
        forEachPage(what, collectionPath, labelSelector, fieldSelector, null, query -> {
            KubernetesResourceList<T> list = http.get(what, query, answer -> {
                requireOk(what, answer, true);
                KubernetesResourceList<T> decoded = decode(what, answer, listType);
                pages.check(answer.url(), ListPages.typeField(decoded, "getKind"),
                        ListPages.typeField(decoded, "getApiVersion"),
                        decoded.getMetadata() == null ? null : decoded.getMetadata().getResourceVersion());
                return decoded;
            });
            if (list == null || list.getItems() == null) {
                throw new CollectionException(what + " at " + server + ": answer has no items");
            }
            for (T item : list.getItems()) {
                if (item == null || item.getMetadata() == null || item.getMetadata().getName() == null) {
                    throw new CollectionException(what + " at " + server + ": unusable answer: an item without "
                            + "metadata.name");
                }
                all.add(map.apply(item));
            }
            return list.getMetadata() == null ? null : list.getMetadata().getContinue();
        });
        return all;
    }

    /**
     * The one pagination rule of both LIST readers: asks for {@code limit} items a page and follows
     * {@code continue} until a page carries none (an empty token is none). A token the server already sent, or a
     * continue token still coming after {@code maxPages} pages ({@value #MAX_PAGES} unless a test sets fewer), is a
     * broken answer: the list would never end.
     *
     * @param extraQuery one more "name=value" for every page's query (includeObject=Metadata), or null
     * @param readPage   reads one page from the query path given and returns that page's continue token
     */
    private void forEachPage(String what, String collectionPath, String labelSelector, String fieldSelector,
                             String extraQuery, Function<String, String> readPage) {
        Set<String> seenTokens = new HashSet<>();
        String token = null;
        int pages = 0;
        do {
            StringBuilder query = new StringBuilder(collectionPath).append("?limit=").append(pageSize);
            appendParam(query, "labelSelector", labelSelector);
            appendParam(query, "fieldSelector", fieldSelector);
            appendParam(query, "continue", token);
            if (extraQuery != null) {
                query.append('&').append(extraQuery);
            }
            lastAsked.asking(server);
            token = readPage.apply(query.toString());
            if (token != null && token.isEmpty()) {
                token = null;
            }
            if (token != null && !seenTokens.add(token)) {
                throw new CollectionException(what + " at " + server
                        + ": the server repeated a continue token; the list would never end");
            }
            if (++pages >= maxPages && token != null) {
                throw new CollectionException(what + " at " + server + ": did not end after " + maxPages
                        + " pages (the server kept sending new continue tokens); the list would never end");
            }
        } while (token != null);
    }

    /**
     * Every object of one row of the table as plain JSON values ({@link KubeJson}), each through {@code map} as it
     * is parsed: no fabric8 model class is involved. {@link KubeJson#MODEL} (what the model reads) on a connection
     * opened for the model, else {@link KubeJson#EVIDENCE} (everything but Secret values, for `collect`).
     */
    public <R> List<R> listPlain(ReadKind<?, ?> kind, Function<Map<String, Object>, R> map) {
        return listPlain(kind.listWhat(), collectionPath(kind.type(), kind.namespace()), kind.kind(),
                kind.labelSelector(), null, connection.modelOnly() ? KubeJson.MODEL : KubeJson.EVIDENCE,
                kind.metadataOnly(), map);
    }

    /**
     * Every page of one LIST of {@code collectionPath} as plain JSON values, streamed from the body into
     * {@code map} item by item (a page is never held whole). A malformed or truncated body fails the whole read:
     * the items already mapped are dropped with it.
     *
     * Secrets are always read metadata-only ({@link MetadataOnly#forKind}): their values never cross the wire.
     *
     * @param itemKind the items' kind ("Node"; decides the Secret and ConfigMap skip rules)
     * @throws NotFound           on a 404 answer
     * @throws CollectionException on any other failure or a broken answer
     */
    public <R> List<R> listPlain(String what, String collectionPath, String itemKind, String labelSelector,
                                 String fieldSelector, KubeJson mode, Function<Map<String, Object>, R> map) {
        return listPlain(what, collectionPath, itemKind, labelSelector, fieldSelector, mode,
                MetadataOnly.forKind(itemKind), map);
    }

    /**
     * As {@link #listPlain(String, String, String, String, String, KubeJson, Function)}; with {@code metadataOnly}
     * set (Secrets), the server is asked for a Table of the items' metadata and named columns
     * ({@link MetadataOnly#ACCEPT}), so nothing else of them crosses the wire; each row arrives as an item of the
     * row's kind.
     */
    public <R> List<R> listPlain(String what, String collectionPath, String itemKind, String labelSelector,
                                 String fieldSelector, KubeJson mode, MetadataOnly metadataOnly,
                                 Function<Map<String, Object>, R> map) {
        return listVersioned(what, collectionPath, itemKind, labelSelector, fieldSelector, mode, metadataOnly, map)
                .items();
    }

    /**
     * A whole LIST and the resourceVersion it was served at: where a watch of the same collection starts, so that
     * it misses nothing between the LIST and the WATCH.
     *
     * @param resourceVersion the LIST's {@code metadata.resourceVersion}: every page carried it ({@link ListPages}),
     *                        so it is never null
     */
    public record Listed<R>(List<R> items, String resourceVersion) {
    }

    /** Every object of one row of the table, as {@link #listPlain(ReadKind, Function)} reads them, with the version. */
    public <R> Listed<R> listVersioned(ReadKind<?, ?> kind, KubeJson mode, Function<Map<String, Object>, R> map) {
        return listVersioned(kind.listWhat(), collectionPath(kind.type(), kind.namespace()), kind.kind(),
                kind.labelSelector(), null, mode, MetadataOnly.forKind(kind.kind()), map);
    }

    private <R> Listed<R> listVersioned(String what, String collectionPath, String itemKind, String labelSelector,
                                        String fieldSelector, KubeJson mode, MetadataOnly metadataOnly,
                                        Function<Map<String, Object>, R> map) {
        MetadataOnly asked = metadataOnly != null ? metadataOnly : MetadataOnly.forKind(itemKind);
        List<R> all = new ArrayList<>();
        java.util.function.Consumer<Map<String, Object>> onItem = item -> {
            Map<String, Object> meta = item.get("metadata") instanceof Map<?, ?> m ? Plain.map(item, "metadata") : null;
            if (meta == null || !(meta.get("name") instanceof String name) || name.isEmpty()) {
                throw new CollectionException(what + " at " + server + ": unusable answer: an item without "
                        + "metadata.name");
            }
            all.add(map.apply(item));
        };
        ListPages pages = new ListPages(what, collectionPath, itemKind, asked != null);
        forEachPage(what, collectionPath, labelSelector, fieldSelector,
                asked == null ? null : MetadataOnly.INCLUDE_OBJECT, query -> {
            KubeJson.ListEnvelope page = asked == null
                    ? http.get(what, query, answer -> {
                        requireOk(what, answer, true);
                        return pages.check(answer.url(), plain(what, answer, () -> mode.readList(answer.body(),
                                "GET " + answer.url(), itemKind, onItem)));
                    })
                    : http.get(what, query, MetadataOnly.ACCEPT, answer -> {
                        requireOk(what, answer, true);
                        return pages.check(answer.url(), plain(what, answer, () -> mode.readMetadataList(answer.body(),
                                "GET " + answer.url(), asked, onItem)));
                    });
            return page.continueToken();
        });
        return new Listed<>(all, pages.resourceVersion());
    }

    /**
     * The rule every LIST page must meet before anything read from its LIST is used, so that an answer which is not
     * kube-apiserver's (an empty {@code {"kind":"List","metadata":{},"items":[]}} from a proxy, a cache serving
     * another URL's answer, a load balancer that sent one page to another apiserver) is a broken answer, never
     * "0 found" or a list short of a page:
     * <ul>
     *   <li>its kind is the list kind of the items asked for: kube-apiserver answers a LIST of Nodes with a
     *       {@code NodeList} in the collection's group version (the list types registered next to each kind, e.g.
     *       kubernetes staging/src/k8s.io/api/core/v1/register.go; a custom resource's {@code spec.names.listKind},
     *       which defaults to its kind plus "List": apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go).
     *       A metadata-only read ({@link MetadataOnly#ACCEPT}) may instead get a {@code Table} in meta.k8s.io/v1,
     *       whose list metadata is the list's (staging/src/k8s.io/apiserver/pkg/registry/rest/table.go). nodegate
     *       never asks a LIST for a PartialObjectMetadataList, so that kind is no answer either. "List" is what
     *       kubectl writes ({@code kubectl get -o json} wraps its objects in a corev1.List with empty list metadata:
     *       staging/src/k8s.io/kubectl/pkg/cmd/get/get.go), never what the API server answers;</li>
     *   <li>it carries a {@code metadata.resourceVersion}: every LIST answer does (the storage layer sets it on the
     *       list, staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go GetList);</li>
     *   <li>every page after the first carries the first page's resourceVersion: a paginated LIST is served from
     *       one snapshot, the continue token holds its revision and each page is read at it (store.go GetList:
     *       {@code returnedRV = continueRV}; the conformance test test/e2e/apimachinery/chunking.go expects the
     *       same resourceVersion on every chunk).</li>
     * </ul>
     * The watch's re-list reads its start version from {@link Listed#resourceVersion()}, which this rule makes
     * present and the same for the whole LIST.
     */
    private final class ListPages {
        /** Where a metadata-only read's Table comes from: the only version nodegate asks for. */
        private static final String TABLE_API_VERSION = "meta.k8s.io/v1";

        private final String what;
        private final String listKind;
        private final String apiVersion;
        private final boolean tableAsked;
        private String version;
        private int pages;

        ListPages(String what, String collectionPath, String itemKind, boolean tableAsked) {
            this.what = what;
            this.listKind = itemKind + "List";
            this.apiVersion = groupVersion(collectionPath);
            this.tableAsked = tableAsked;
        }

        KubeJson.ListEnvelope check(String url, KubeJson.ListEnvelope page) {
            check(url, page.kind(), page.apiVersion(), page.resourceVersion());
            return page;
        }

        void check(String url, String kind, String pageApiVersion, String resourceVersion) {
            pages++;
            boolean table = tableAsked && "Table".equals(kind) && TABLE_API_VERSION.equals(pageApiVersion);
            List<String> wrong = new ArrayList<>();
            if (!table && !(listKind.equals(kind) && apiVersion.equals(pageApiVersion))) {
                wrong.add("it is " + (kind == null ? "of no kind" : "a " + kind + " (" + pageApiVersion + ")")
                        + ", not the " + listKind + " (" + apiVersion + ")"
                        + (tableAsked ? " or Table (" + TABLE_API_VERSION + ")" : "") + " a LIST of it answers");
            }
            if (resourceVersion == null || resourceVersion.isEmpty()) {
                wrong.add("it carries no metadata.resourceVersion, which kube-apiserver puts on every LIST page");
            } else if (version == null) {
                version = resourceVersion;
            } else if (!version.equals(resourceVersion)) {
                wrong.add("it is at resourceVersion " + resourceVersion + " but page 1 was at " + version
                        + ": the pages of one LIST come from one snapshot");
            }
            if (!wrong.isEmpty()) {
                throw new CollectionException(what + " at " + server + ": broken answer: page " + pages + " (GET " + url
                        + "): " + String.join("; ", wrong) + ". A proxy or cache answering in the API server's "
                        + "place? Nothing this LIST returned is used");
            }
        }

        /** The resourceVersion of the whole LIST (the first page's, which every page carried). */
        String resourceVersion() {
            return version;
        }

        /** "v1" for /api/v1/..., "coordination.k8s.io/v1" for /apis/coordination.k8s.io/v1/... */
        static String groupVersion(String collectionPath) {
            String[] seg = collectionPath.replaceFirst("^/+", "").split("/");
            return "api".equals(seg[0]) && seg.length > 1 ? seg[1]
                    : "apis".equals(seg[0]) && seg.length > 2 ? seg[1] + "/" + seg[2] : "";
        }

        /**
         * The kind or apiVersion a typed list was parsed with: fabric8's list classes (NodeList,
         * GenericKubernetesResourceList...) each have getKind/getApiVersion, but no interface declares them.
         */
        static String typeField(Object list, String getter) {
            try {
                return list.getClass().getMethod(getter).invoke(list) instanceof String s ? s : null;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(list.getClass().getName() + " has no " + getter, e);
            }
        }
    }

    /**
     * Whether the server serves this row's collection: a one-item LIST answers 200 (true) or 404 (false: the API,
     * e.g. CSINode, is not there). Any other answer is an error, never "not served".
     */
    public boolean serves(ReadKind<?, ?> kind) {
        String what = kind.listWhat();
        String query = collectionPath(kind.type(), kind.namespace()) + "?limit=1";
        lastAsked.asking(server);
        try {
            ListPages page = new ListPages(what, collectionPath(kind.type(), kind.namespace()), kind.kind(), false);
            http.get(what, query, answer -> {
                requireOk(what, answer, true);
                return page.check(answer.url(), plain(what, answer, () -> KubeJson.MODEL.readList(answer.body(),
                        "GET " + answer.url(), kind.kind(), item -> { })));
            });
            return true;
        } catch (NotFound e) {
            return false;
        }
    }

    /**
     * A consistent LIST of one row of the table with {@code limit=1} and no resourceVersion: served at quorum, its
     * {@code metadata.resourceVersion} is the store's current version (kube-apiserver reads it exactly this way to
     * serve a consistent read from its cache: apiserver {@code storage/util.go} GetCurrentResourceVersionFromStorage),
     * and its one item is the collection's first object as it is now. No continue token is followed. Secrets come as
     * a Table of metadata, as every read of them.
     *
     * @throws CollectionException on any failure, or a page without a resourceVersion (nothing to compare with)
     */
    public Listed<Map<String, Object>> listFirst(ReadKind<?, ?> kind) {
        String what = kind.listWhat() + " (limit=1, consistent)";
        MetadataOnly asked = MetadataOnly.forKind(kind.kind());
        StringBuilder query = new StringBuilder(collectionPath(kind.type(), kind.namespace())).append("?limit=1");
        appendParam(query, "labelSelector", kind.labelSelector());
        if (asked != null) {
            query.append('&').append(MetadataOnly.INCLUDE_OBJECT);
        }
        List<Map<String, Object>> items = new ArrayList<>(1);
        lastAsked.asking(server);
        KubeJson.ListEnvelope page = asked == null
                ? http.get(what, query.toString(), answer -> {
                    requireOk(what, answer, true);
                    return plain(what, answer, () -> KubeJson.MODEL.readList(answer.body(), "GET " + answer.url(),
                            kind.kind(), items::add));
                })
                : http.get(what, query.toString(), MetadataOnly.ACCEPT, answer -> {
                    requireOk(what, answer, true);
                    return plain(what, answer, () -> KubeJson.MODEL.readMetadataList(answer.body(),
                            "GET " + answer.url(), asked, items::add));
                });
        if (page.resourceVersion() == null || page.resourceVersion().isEmpty()) {
            throw new CollectionException(what + " at " + server + ": unusable answer: the list carries no "
                    + "metadata.resourceVersion");
        }
        if (items.size() > 1) {
            throw new CollectionException(what + " at " + server + ": unusable answer: " + items.size()
                    + " items for limit=1");
        }
        return new Listed<>(items, page.resourceVersion());
    }

    /** GET namespace: false only on 404; an empty or broken 200 is an error, never absence. */
    public boolean namespaceExists(String namespace) {
        return getPlain("GET namespace " + namespace, "/api/v1/namespaces/" + namespace, "Namespace", namespace,
                KubeJson.MODEL).isPresent();
    }

    // ---- watches ------------------------------------------------------------------------------------------------

    /**
     * The server cannot watch from the resourceVersion asked (410 Gone: etcd compacted it, "too old resource
     * version"), as a status or as an ERROR event: the watcher must LIST again.
     */
    public static final class Gone extends CollectionException {
        Gone(String message) {
            super(message);
        }
    }

    /** What a running watch tells its caller. */
    public interface WatchListener {
        /** The server accepted the watch (200): events follow. {@code abort} closes it from another thread. */
        void opened(Runnable abort);

        /** One ADDED, MODIFIED, DELETED or BOOKMARK event, whole (ERROR events are thrown, never handed over). */
        void event(KubeJson.WatchEvent event);
    }

    /**
     * Watches one row of the table from {@code resourceVersion} (an HTTP streaming watch, as client-go and kubectl
     * watch: one JSON event per line, bookmarks asked for) and hands each event to {@code listener} until the server
     * ends the watch after {@code timeoutSeconds}; then it returns normally and the caller watches again from the
     * last version it saw. The whole answer is bounded by {@code timeoutSeconds} plus the request timeout.
     * Secrets ({@link MetadataOnly#forKind}) are watched as Tables of their metadata and type, as they are listed:
     * each event's object has the shape of a LIST's item, and their values never cross the wire.
     *
     * @throws Gone               on 410 (at start or as an ERROR event): LIST again
     * @throws NotFound           on 404 (the API or namespace went away)
     * @throws CollectionException on any other failure, ERROR event, broken event or cut stream
     */
    public void watch(ReadKind<?, ?> kind, String resourceVersion, int timeoutSeconds, KubeJson mode,
                      WatchListener listener) {
        watch(kind, resourceVersion, timeoutSeconds, null, mode, listener);
    }

    /**
     * As {@link #watch(ReadKind, String, int, KubeJson, WatchListener)}; a stream that sends nothing, not even a
     * bookmark, for {@code silentWithin} fails with {@link ApiHttp.Silent} (null: only the whole deadline bounds it).
     */
    public void watch(ReadKind<?, ?> kind, String resourceVersion, int timeoutSeconds, Duration silentWithin,
                      KubeJson mode, WatchListener listener) {
        String what = "WATCH " + kind.listWhat().replaceFirst("^LIST ", "");
        StringBuilder query = new StringBuilder(collectionPath(kind.type(), kind.namespace()))
                .append("?watch=true&allowWatchBookmarks=true&timeoutSeconds=").append(timeoutSeconds);
        appendParam(query, "labelSelector", kind.labelSelector());
        appendParam(query, "resourceVersion", resourceVersion);
        // Secrets are watched as the LIST reads them: each event's object a one-row Table of metadata and type
        // (KubeJson#readMetadataWatchEvents says what kube-apiserver sends), so no value crosses the wire
        MetadataOnly metadataOnly = MetadataOnly.forKind(kind.kind());
        if (metadataOnly != null) {
            query.append('&').append(MetadataOnly.INCLUDE_OBJECT);
        }
        lastAsked.asking(server);
        // the headers within the request timeout, as any call; the events for as long as the watch lasts
        http.stream(what, query.toString(), metadataOnly == null ? "application/json" : MetadataOnly.ACCEPT,
                requestTimeout, silentWithin, Duration.ofSeconds(timeoutSeconds).plus(requestTimeout), answer -> {
            if (answer.status() == 410) {
                throw new Gone(what + " at " + server + ": 410 Gone (" + statusMessage(answer.body())
                        + "): the version " + resourceVersion + " is compacted; listing again");
            }
            requireOk(what, answer, true);
            listener.opened(answer::abort);
            java.util.function.Consumer<KubeJson.WatchEvent> onEvent = event -> {
                switch (event.type()) {
                    case "ADDED", "MODIFIED", "DELETED", "BOOKMARK" -> listener.event(event);
                    case "ERROR" -> throw watchError(what, event.object());
                    default -> throw new CollectionException(what + " at " + server
                            + ": unusable answer: a watch event of type '" + event.type() + "'");
                }
            };
            String where = "WATCH " + answer.url();
            plain(what, answer, () -> metadataOnly == null
                    ? mode.readWatchEvents(answer.body(), where, kind.kind(), onEvent)
                    : mode.readMetadataWatchEvents(answer.body(), where, metadataOnly, onEvent));
            return null;
        });
    }

    /** An ERROR event's Status: 410 is {@link Gone}; anything else fails the watch with the server's words. */
    private CollectionException watchError(String what, Map<String, Object> status) {
        Object code = status.get("code");
        String message = status.get("message") instanceof String m ? m : String.valueOf(status);
        if (code instanceof Number n && n.intValue() == 410) {
            return new Gone(what + " at " + server + ": 410 Gone (" + message + "): listing again");
        }
        return new CollectionException(what + ": " + (code instanceof Number n ? n.intValue() + " "
                + reason(n.intValue()) + " " : "") + "error event from " + server + ": " + message);
    }

    /**
     * A named object as plain JSON values: empty only when the status code is 404. A 200 with an empty body, a cut
     * body, another object or no uid is a broken answer, never absence.
     */
    public Optional<Map<String, Object>> getPlain(String what, String path, String kind, String expectedName,
                                                  KubeJson mode) {
        lastAsked.asking(server);
        // a Secret is asked for as a one-row Table of its metadata and type: its values never cross the wire
        MetadataOnly metadataOnly = MetadataOnly.forKind(kind);
        String query = metadataOnly == null ? path : path + (path.contains("?") ? "&" : "?") + MetadataOnly.INCLUDE_OBJECT;
        return http.get(what, query, metadataOnly == null ? "application/json" : MetadataOnly.ACCEPT, answer -> {
            if (answer.status() == 404) {
                return Optional.<Map<String, Object>>empty();
            }
            requireOk(what, answer, false);
            Map<String, Object> obj;
            try {
                obj = plain(what, answer, () -> metadataOnly == null
                        ? mode.readObject(answer.body(), "GET " + answer.url(), kind)
                        : mode.readMetadataObject(answer.body(), "GET " + answer.url(), metadataOnly));
            } catch (CollectionException e) {
                obj = null;
            }
            requireTheNamedObject(what, obj, kind, expectedName);
            return Optional.of(obj);
        });
    }

    /**
     * A 200 to a named GET must hold that object, with a uid: an empty, cut or other object (a proxy, a cut
     * connection) is a broken answer, never the object and never absence.
     */
    private void requireTheNamedObject(String what, Map<String, Object> obj, String kind, String expectedName) {
        Map<String, Object> meta = obj == null || !(obj.get("metadata") instanceof Map<?, ?>) ? null
                : Plain.map(obj, "metadata");
        if (meta == null || !expectedName.equals(meta.get("name")) || !(meta.get("uid") instanceof String uid)
                || uid.isBlank()) {
            throw new CollectionException(what + " at " + server + ": unusable answer (HTTP 200 without the "
                    + kind + " " + expectedName + ": empty, cut or another object)");
        }
    }

    /** A named object's answer: the bytes exactly as the server sent them, and the object they hold. */
    public record RawObject(byte[] body, Map<String, Object> object) {
    }

    /**
     * A named object with its answer's bytes as the server sent them (evidence written before a DELETE): empty only
     * on a 404; the same checks as {@link #getPlain}. Never for Secrets (their values would be in the bytes).
     */
    public Optional<RawObject> getRaw(String what, String path, String kind, String expectedName) {
        if ("Secret".equals(kind)) {
            throw new IllegalArgumentException("a Secret's answer holds its values: read it with getPlain");
        }
        lastAsked.asking(server);
        return http.get(what, path, answer -> {
            if (answer.status() == 404) {
                return Optional.<RawObject>empty();
            }
            requireOk(what, answer, false);
            byte[] body = answer.body().readAllBytes();
            Map<String, Object> obj;
            try {
                obj = KubeJson.EVIDENCE.readObject(new java.io.ByteArrayInputStream(body), "GET " + answer.url(), kind);
            } catch (JsonReadException e) {
                obj = null;
            }
            requireTheNamedObject(what, obj, kind, expectedName);
            return Optional.of(new RawObject(body, obj));
        });
    }

    /**
     * Runs a streaming read of a 200 answer. A failure of the stream underneath (the deadline, a reset) goes back to
     * {@link ApiHttp} as I/O, so it is reported as a timeout or a broken connection; broken JSON is an unparsable
     * answer naming the URL and the position.
     */
    private <X> X plain(String what, ApiHttp.Answer answer, Supplier<X> read) throws IOException {
        try {
            return read.get();
        } catch (JsonReadException e) {
            if (e.ioFailure()) {
                IOException io = ioCause(e);
                throw io != null ? io : new IOException(e.getMessage(), e);
            }
            throw new CollectionException(what + ": unparsable answer from API server " + server
                    + " (a proxy or login page?): " + e.getMessage(), e);
        }
    }

    /**
     * A named object by its API path: empty only when the status code is 404. A 200 with an empty body (a proxy, a
     * cut connection), another object or no uid is a broken answer, never absence.
     */
    public <T extends HasMetadata> Optional<T> getObject(String what, String path, Class<T> type, String expectedName) {
        lastAsked.asking(server);
        Optional<T> found = http.get(what, path, answer -> {
            if (answer.status() == 404) {
                return Optional.empty();
            }
            requireOk(what, answer, false);
            T obj;
            try {
                obj = decode(what, answer, type);
            } catch (CollectionException e) {
                obj = null;
            }
            if (obj == null || obj.getMetadata() == null || !expectedName.equals(obj.getMetadata().getName())
                    || obj.getMetadata().getUid() == null || obj.getMetadata().getUid().isBlank()) {
                throw new CollectionException(what + " at " + server + ": unusable answer (HTTP 200 without the "
                        + ApiResource.of(type).kind() + " " + expectedName + ": empty, cut or another object)");
            }
            return Optional.of(obj);
        });
        return found;
    }

    /** The API server's gitVersion, from GET /version. */
    public String serverVersion() {
        lastAsked.asking(server);
        String what = "GET /version";
        return http.get(what, "/version", answer -> {
            requireOk(what, answer, false);
            Object version = plain(what, answer, () -> KubeJson.MODEL.readValue(answer.body(), "GET " + answer.url()));
            Object git = version instanceof Map<?, ?> m ? m.get("gitVersion") : null;
            if (!(git instanceof String text) || text.isBlank()) {
                throw new CollectionException(what + " at " + server + ": answer has no gitVersion");
            }
            return text;
        });
    }

    /** Status and Date header of GET {@code path}, for the server's clock; the body is read and dropped. */
    public String dateHeader(String what, String path) {
        lastAsked.asking(server);
        return http.get(what, path, answer -> {
            requireOk(what, answer, false);
            answer.body().transferTo(java.io.OutputStream.nullOutputStream());
            return answer.header("Date");
        });
    }

    private static void appendParam(StringBuilder query, String name, String value) {
        if (value != null) {
            query.append('&').append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
    }

    /** Any status but 200 is an error naming the call, the server and the URL; 404 on a LIST is {@link NotFound}. */
    private void requireOk(String what, ApiHttp.Answer answer, boolean list) throws IOException {
        int code = answer.status();
        if (code == 200) {
            return;
        }
        String message = statusMessage(answer.body());
        String hint = switch (code) {
            case 401 -> " (credentials rejected: check the kubeconfig user)";
            case 403 -> " (RBAC: the user may not do this)";
            case 429 -> " (API server is throttling; try again later)";
            default -> "";
        };
        String text = what + ": " + code + " " + reason(code) + " from " + server + hint
                + (message.isEmpty() ? "" : ": " + message) + " (GET " + answer.url() + ")";
        if (code == 404 && list) {
            throw new NotFound(text, null);
        }
        throw new CollectionException(text);
    }

    /** The message of a Kubernetes Status answer, or the first line of whatever else the body holds. */
    private static String statusMessage(InputStream body) throws IOException {
        byte[] bytes = body.readNBytes(ERROR_BODY_LIMIT);
        String text = new String(bytes, StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return "";
        }
        if (text.startsWith("{")) {
            try (var parser = new tools.jackson.core.json.JsonFactory().createParser(
                    tools.jackson.core.ObjectReadContext.empty(), bytes)) {
                int depth = 0;
                for (var t = parser.nextToken(); t != null; t = parser.nextToken()) {
                    if (t == tools.jackson.core.JsonToken.START_OBJECT || t == tools.jackson.core.JsonToken.START_ARRAY) {
                        depth++;
                    } else if (t == tools.jackson.core.JsonToken.END_OBJECT || t == tools.jackson.core.JsonToken.END_ARRAY) {
                        depth--;
                    } else if (depth == 1 && t == tools.jackson.core.JsonToken.PROPERTY_NAME
                            && "message".equals(parser.currentName())) {
                        parser.nextToken();
                        return firstLine(parser.getValueAsString(""));
                    }
                }
            } catch (RuntimeException notJson) {
                // fall through to the raw text
            }
        }
        return firstLine(text);
    }

    private static String firstLine(String s) {
        String line = s.lines().findFirst().orElse("");
        return line.length() > 300 ? line.substring(0, 300) + "…" : line;
    }

    /**
     * Parses a 200 answer. A parse failure caused by the stream (the deadline, a reset) is handed back to
     * {@link ApiHttp} as I/O so it is reported as such; anything else is an unparsable answer.
     */
    private <X> X decode(String what, ApiHttp.Answer answer, Class<X> type) {
        try {
            X value = serialization().unmarshal(answer.body(), type);
            if (value == null) {
                throw new CollectionException(what + " at " + server + ": unusable answer (HTTP 200 with an empty "
                        + "body)");
            }
            return value;
        } catch (CollectionException e) {
            throw e;
        } catch (RuntimeException e) {
            IOException io = ioCause(e);
            if (io != null) {
                throw new UncheckedIOException(io);
            }
            String detail = rootMessage(e).lines().findFirst().orElse("");
            throw new CollectionException(what + ": unparsable answer from API server " + server
                    + " (a proxy or login page?): " + detail, e);
        }
    }

    private static IOException ioCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IOException io && !(t instanceof tools.jackson.core.JacksonException)) {
                return io;
            }
        }
        return null;
    }

    private KubernetesSerialization serialization() {
        return serialization(connection.modelOnly());
    }

    /** fabric8's typed parsing without a client: whole objects, or what the model reads ({@link ModelOnlyParsing}). */
    public static KubernetesSerialization serialization(boolean modelOnly) {
        return modelOnly ? Parsers.MODEL_ONLY : Parsers.WHOLE;
    }

    /** Built on first use (each costs Jackson set-up); one per process is enough. */
    private static final class Parsers {
        static final KubernetesSerialization MODEL_ONLY = ModelOnlyParsing.serialization();
        static final KubernetesSerialization WHOLE = new KubernetesSerialization();
    }

    @SuppressWarnings("unchecked")
    private static <T extends HasMetadata> Class<? extends KubernetesResourceList<T>> listType(Class<T> type) {
        try {
            // fabric8's model names every list type after its item type: Node -> NodeList, in the same package
            return (Class<? extends KubernetesResourceList<T>>) Class.forName(type.getName() + "List", false,
                    type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("no list type for " + type.getName(), e);
        }
    }

    // ---- fabric8 calls (writes, watches) ------------------------------------------------------------------------

    /** A named object through a fabric8 call: empty only on NotFound, and the answer must name it and carry a uid. */
    public <T extends HasMetadata> Optional<T> get(String what, Supplier<T> call, String expectedName) {
        T obj;
        try {
            obj = call(what, call);
        } catch (NotFound e) {
            return Optional.empty();
        }
        if (obj == null) {
            return Optional.empty(); // fabric8 returns null only for a 404 answer
        }
        if (obj.getMetadata() == null || !expectedName.equals(obj.getMetadata().getName())
                || obj.getMetadata().getUid() == null || obj.getMetadata().getUid().isBlank()) {
            throw new CollectionException(what + " at " + server + ": unusable answer: missing metadata.name/uid");
        }
        return Optional.of(obj);
    }

    /**
     * Sends one request with the client's request timeout as its deadline, and gives up on it when that passes:
     * an abandoned request is cancelled, so it cannot reach the server later.
     */
    public static io.fabric8.kubernetes.client.http.HttpResponse<String> send(KubernetesClient client,
            io.fabric8.kubernetes.client.http.HttpRequest.Builder request)
            throws InterruptedException, java.util.concurrent.ExecutionException, java.util.concurrent.TimeoutException {
        long timeout = Math.max(1, client.getConfiguration().getRequestTimeout());
        var future = client.getHttpClient().sendAsync(
                request.timeout(timeout, java.util.concurrent.TimeUnit.MILLISECONDS).build(), String.class);
        try {
            return future.get(timeout, java.util.concurrent.TimeUnit.MILLISECONDS);
        } finally {
            future.cancel(true);
        }
    }

    /** Threads that carry typed calls, so a call can be abandoned at its deadline (daemons: they never hold exit). */
    private static final java.util.concurrent.ExecutorService CALLS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "nodegate-api-call");
        t.setDaemon(true);
        return t;
    });

    /** The whole-answer deadline of one request: the client's request timeout (headers and body together). */
    long deadlineMillis() {
        long millis = requestTimeout == null ? 0 : requestTimeout.toMillis();
        return millis > 0 ? millis : 60_000;
    }

    /**
     * Runs a typed call with a deadline for the complete answer. The HTTP client's own timeout covers the wait for
     * headers only: a server (or proxy) that sends headers and then trickles the body would hold the command
     * forever. At the deadline the call is abandoned and cancelled, and the command fails naming the server.
     */
    private <T> T withinDeadline(String what, Supplier<T> call) {
        java.util.concurrent.CompletableFuture<T> future = java.util.concurrent.CompletableFuture.supplyAsync(call, CALLS);
        long deadline = deadlineMillis();
        try {
            return future.get(deadline, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            future.cancel(true);
            throw new CollectionException(what + ": no answer from API server " + server + " within "
                    + Durations.format(java.time.Duration.ofMillis(deadline))
                    + " (the whole answer, headers and body; --request-timeout)", e);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new CollectionException(what + " at " + server + ": interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new CollectionException(what + " at " + server + ": " + cause, cause);
        }
    }

    /** Runs one call; failures become {@link CollectionException} (404: {@link NotFound}) in the one wording. */
    public <T> T call(String what, Supplier<T> call) {
        lastAsked.asking(server);
        try {
            return withinDeadline(what, call);
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                throw new NotFound(what + ": " + describe(e), e);
            }
            throw new CollectionException(what + ": " + describe(e), e);
        } catch (CollectionException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CollectionException(what + " at " + server + ": unusable answer: " + e, e);
        }
    }

    /** One line saying what went wrong: status, reason, server and a hint, or what failed underneath. */
    public String describe(Throwable failure) {
        if (failure instanceof KubernetesClientException e && e.getCode() > 0) {
            int code = e.getCode();
            Status status = e.getStatus();
            String message = status != null && status.getMessage() != null ? status.getMessage() : e.getMessage();
            String hint = switch (code) {
                case 401 -> " (credentials rejected: check the kubeconfig user)";
                case 403 -> " (RBAC: the user may not do this)";
                case 429 -> " (API server is throttling; try again later)";
                default -> "";
            };
            return code + " " + reason(code) + " from " + server + hint + ": " + message;
        }
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
            if (root instanceof ConnectException || root instanceof HttpConnectTimeoutException
                    || root instanceof UnknownHostException || root instanceof NoRouteToHostException) {
                return "cannot reach API server " + server + ": " + root;
            }
            if (root instanceof HttpTimeoutException || root instanceof InterruptedIOException) {
                return "no answer from API server " + server + " within " + Durations.format(requestTimeout)
                        + " (--request-timeout): " + root;
            }
            if (root instanceof tools.jackson.core.JacksonException parse) {
                String detail = parse.getOriginalMessage() == null ? "" : parse.getOriginalMessage().lines()
                        .findFirst().orElse("");
                return "unparsable answer from API server " + server + " (a proxy or login page?): " + detail;
            }
        }
        return "failed talking to API server " + server + ": " + rootMessage(failure);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root + ")";
    }

    static String reason(int code) {
        return switch (code) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 410 -> "Gone";
            case 422 -> "Unprocessable Entity";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "HTTP " + code;
        };
    }
}
