package io.nodegate.source.live;

import io.nodegate.time.Durations;

import java.time.Duration;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.nodegate.CollectionException;
import io.nodegate.source.ReadKind;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The single get/list layer every API read goes through (the live source, the lifecycle's ApiReader, probe): one
 * pagination rule, one rule for what NotFound means, one wording for failures.
 *
 * <p>Pagination: {@code limit} per page plus the continue token, until the server sends none; a repeated token or
 * more than {@value #MAX_PAGES} pages fails the read instead of looping. Failures: any error (connection refused,
 * timeout, 401/403/429/5xx, unparsable answer, an item without a name) raises {@link CollectionException} naming
 * the call and the server. Only a 404 is different: on a named GET it is absence ({@link Optional#empty()}), on a
 * LIST it raises {@link NotFound} (a subclass, so callers that treat every failure alike still fail), which only
 * kinds whose absence is legitimate ({@link ReadKind.Presence#OPTIONAL_API}) turn into "absent".
 */
public final class ApiCalls {

    public static final long PAGE_SIZE = 500;
    static final int MAX_PAGES = 10_000;

    private final KubernetesClient client;
    private final String server;
    private final Duration requestTimeout;
    private final long pageSize;

    public ApiCalls(KubernetesClient client, Duration requestTimeout) {
        this(client, requestTimeout, PAGE_SIZE);
    }

    public ApiCalls(KubernetesClient client, Duration requestTimeout, long pageSize) {
        this.client = client;
        String url = client.getMasterUrl() == null ? null : client.getMasterUrl().toString();
        this.server = url != null && url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.requestTimeout = requestTimeout;
        this.pageSize = pageSize;
    }

    /** For a client built elsewhere (tests, the lifecycle): its own configured request timeout. */
    public static ApiCalls of(KubernetesClient client) {
        Duration timeout = Duration.ofMillis(client.getConfiguration() == null ? 0 : client.getConfiguration().getRequestTimeout());
        return new ApiCalls(client, timeout);
    }

    public KubernetesClient client() {
        return client;
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

    /** Every object of one row of the table, trimmed, each through {@code map} as its page arrives. */
    public <T extends HasMetadata, R> List<R> list(ReadKind<T, ?> kind, Function<? super T, R> map) {
        return listAll(kind.listWhat(), o -> kind.operation(client).list(o), t -> map.apply(kind.trim(t)));
    }

    /**
     * Every page of one LIST; each item goes through {@code map} as its page arrives, then the page is dropped.
     *
     * @throws NotFound           on a 404 answer
     * @throws CollectionException on any other failure or a broken answer
     */
    public <T extends HasMetadata, L extends KubernetesResourceList<T>, R> List<R> listAll(
            String what, Function<ListOptions, L> page, Function<? super T, R> map) {
        List<R> all = new ArrayList<>();
        Set<String> seenTokens = new HashSet<>();
        String token = null;
        int pages = 0;
        do {
            ListOptions options = new ListOptionsBuilder().withLimit(pageSize).withContinue(token).build();
            L list = call(what, () -> page.apply(options));
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
            token = list.getMetadata() == null ? null : list.getMetadata().getContinue();
            if (token != null && token.isEmpty()) {
                token = null;
            }
            if (token != null && !seenTokens.add(token)) {
                throw new CollectionException(what + " at " + server
                        + ": the server repeated a continue token; the list would never end");
            }
            if (++pages > MAX_PAGES) {
                throw new CollectionException(what + " at " + server + ": did not end after " + MAX_PAGES + " pages");
            }
        } while (token != null);
        return all;
    }

    /**
     * A named object: empty only on NotFound. The answer must name the object asked for and carry a uid, or it
     * is a broken answer (a proxy's page parsed into an empty object proves nothing).
     */
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
     * A named object by its API path, over the client's own HTTP client (its credentials and TLS): empty only when
     * the status code is 404. fabric8's {@code get()} also returns null for a 200 with an empty body (a proxy, a
     * cut connection), which would read as NotFound and "prove" an absence; here that is a broken answer.
     */
    public <T extends HasMetadata> Optional<T> getObject(String what, String path, Class<T> type, String expectedName) {
        String url = server + path;
        io.fabric8.kubernetes.client.http.HttpResponse<String> response;
        try {
            response = send(client, client.getHttpClient().newHttpRequestBuilder().uri(url));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectionException(what + " at " + server + ": interrupted");
        } catch (java.util.concurrent.TimeoutException e) {
            throw new CollectionException(what + ": no answer from API server " + server + " within "
                    + client.getConfiguration().getRequestTimeout() / 1000 + " s (--request-timeout)", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new CollectionException(what + ": " + describe(e), e);
        }
        if (response.code() == 404) {
            return Optional.empty();
        }
        if (response.code() != 200) {
            String message = "";
            try {
                Status status = client.getKubernetesSerialization().unmarshal(response.body(), Status.class);
                message = status == null || status.getMessage() == null ? "" : ": " + status.getMessage();
            } catch (RuntimeException notAStatus) {
                // the code says enough
            }
            throw new CollectionException(what + ": " + response.code() + " " + reason(response.code()) + " from "
                    + server + message + " (GET " + url + ")");
        }
        T obj;
        try {
            obj = client.getKubernetesSerialization().unmarshal(response.body(), type);
        } catch (RuntimeException e) {
            obj = null;
        }
        if (obj == null || obj.getMetadata() == null || !expectedName.equals(obj.getMetadata().getName())
                || obj.getMetadata().getUid() == null || obj.getMetadata().getUid().isBlank()) {
            throw new CollectionException(what + " at " + server + ": unusable answer (HTTP 200 without the "
                    + HasMetadata.getKind(type) + " " + expectedName + ": empty, cut or another object)");
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

    /** The API server of the most recent call in this process, for the overall deadline's message. */
    private static volatile String lastServer;

    public static String lastServer() {
        return lastServer;
    }

    /** The whole-answer deadline of one request: the client's request timeout (headers and body together). */
    long deadlineMillis() {
        long configured = client.getConfiguration() == null ? 0 : client.getConfiguration().getRequestTimeout();
        long millis = configured > 0 ? configured : requestTimeout == null ? 0 : requestTimeout.toMillis();
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
        lastServer = server;
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
