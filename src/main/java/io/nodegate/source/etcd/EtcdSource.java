package io.nodegate.source.etcd;

import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.model.EtcdStatus;
import io.nodegate.InputException;
import io.nodegate.source.http.WholeAnswer;
import io.nodegate.time.Durations;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Reads member list and status from every etcd endpoint on its own, concurrently.
 *
 * <p>Why the JSON gateway over {@link HttpClient} rather than gRPC: every etcd since 3.4 serves
 * {@code POST /v3/cluster/member/list} and {@code POST /v3/maintenance/status} on the client port, with the
 * same TLS and client-certificate rules as gRPC. grpc-java plus the etcd protos, or jetcd, would add tens of
 * MB and a second network stack (netty) to a CLI that already ships the JDK's HTTP client for fabric8, and
 * nodegate needs just two read-only calls.
 *
 * <p>Why each endpoint separately: split brain is only visible as disagreement between endpoints (different
 * cluster IDs, different member lists), so answers are never merged, and an endpoint that does not answer is
 * recorded as an error on its report: for quorum analysis that is a fact, not noise.
 */
public final class EtcdSource {

    static final String MEMBER_LIST = "/v3/cluster/member/list";
    static final String STATUS = "/v3/maintenance/status";

    private final Duration timeout;
    private final SSLContext sslContext;

    /** @param sslContext used for https endpoints; null = the JDK default (server verified, no client cert) */
    public EtcdSource(Duration timeout, SSLContext sslContext) {
        this.timeout = timeout;
        this.sslContext = sslContext;
    }

    /** One report per endpoint, in the order given. Never throws for an endpoint failure. */
    public List<EtcdEndpointReport> read(List<URI> endpoints) {
        return read(endpoints, false);
    }

    /**
     * Like {@link #read(List)}; with {@code discover}, a second round then asks every client URL that the answering
     * endpoints list and that was not asked yet (etcdctl's --cluster). A forked server still sitting on a
     * registered member's address then shows up with its own cluster ID.
     */
    public List<EtcdEndpointReport> read(List<URI> endpoints, boolean discover) {
        List<EtcdEndpointReport> first = readRound(endpoints);
        if (!discover) {
            return first;
        }
        java.util.Set<String> asked = new java.util.HashSet<>();
        endpoints.forEach(u -> asked.add(hostPort(u)));
        List<URI> more = new ArrayList<>();
        for (EtcdEndpointReport r : first) {
            for (var m : r.members()) {
                for (String url : m.clientUrls()) {
                    try {
                        URI uri = URI.create(url);
                        if (uri.getHost() != null && asked.add(hostPort(uri))) {
                            more.add(uri);
                        }
                    } catch (IllegalArgumentException e) {
                        // a member advertising a malformed URL: nothing to ask there
                    }
                }
            }
        }
        if (more.isEmpty()) {
            return first;
        }
        List<EtcdEndpointReport> all = new ArrayList<>(first);
        all.addAll(readRound(more));
        return all;
    }

    private static String hostPort(URI u) {
        int port = u.getPort() != -1 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
        return String.valueOf(u.getHost()).toLowerCase(java.util.Locale.ROOT) + ":" + port;
    }

    private List<EtcdEndpointReport> readRound(List<URI> endpoints) {
        for (URI uri : endpoints) {
            requireUsable(uri);
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(endpoints.size(), 8)), r -> {
            Thread t = new Thread(r, "etcd-query");
            t.setDaemon(true);
            return t;
        });
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .executor(pool);
        if (sslContext != null) {
            builder.sslContext(sslContext);
        }
        HttpClient client = builder.build();
        try {
            List<CompletableFuture<EtcdEndpointReport>> futures = new ArrayList<>();
            for (URI uri : endpoints) {
                futures.add(query(client, uri));
            }
            List<EtcdEndpointReport> reports = new ArrayList<>();
            for (int i = 0; i < endpoints.size(); i++) {
                reports.add(futures.get(i).join());
            }
            return reports;
        } finally {
            pool.shutdownNow();
        }
    }

    private CompletableFuture<EtcdEndpointReport> query(HttpClient client, URI endpoint) {
        String name = display(endpoint);
        CompletableFuture<String> members = post(client, endpoint, MEMBER_LIST);
        CompletableFuture<String> status = post(client, endpoint, STATUS);
        return members.thenCombine(status, (memberBody, statusBody) -> {
            try {
                EtcdAnswers.MemberList list = EtcdAnswers.memberList(memberBody);
                EtcdStatus st = EtcdAnswers.status(statusBody);
                return new EtcdEndpointReport(name, st, list.clusterId(), list.members(), null);
            } catch (EtcdAnswers.MalformedAnswer e) {
                return EtcdEndpointReport.failed(name, "unparsable answer: " + e.getMessage());
            }
        }).exceptionally(e -> EtcdEndpointReport.failed(name, describe(e, name.startsWith("https:"))));
    }

    private CompletableFuture<String> post(HttpClient client, URI endpoint, String path) {
        HttpRequest request = HttpRequest.newBuilder(endpoint.resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        // the timeout is the deadline of the whole answer: HttpRequest.timeout would cover the headers only, and a
        // server that sends headers and then trickles the body would hold the call for as long as it trickles
        return WholeAnswer.sendAsync(client, request, timeout, WholeAnswer.DEFAULT_MAX_BYTES).thenApply(resp -> {
            if (resp.statusCode() != 200) {
                String msg = EtcdAnswers.gatewayError(resp.body());
                throw new CompletionException(new HttpStatusError(path + ": HTTP " + resp.statusCode() + ": "
                        + (msg != null ? msg : EtcdAnswers.abbreviate(resp.body()))));
            }
            return resp.body();
        });
    }

    private String describe(Throwable e, boolean tls) {
        Throwable cause = e;
        while ((cause instanceof CompletionException || cause instanceof java.util.concurrent.ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof HttpStatusError) {
            return cause.getMessage();
        }
        if (cause instanceof HttpConnectTimeoutException) {
            return "connect timed out after " + human(timeout);
        }
        if (cause instanceof WholeAnswer.DeadlineExceeded || cause instanceof HttpTimeoutException) {
            return "no complete answer within " + human(timeout) + " (--etcd-timeout: the whole answer, headers and "
                    + "body)";
        }
        if (cause instanceof ConnectException) {
            return "connection refused or unreachable" + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
        }
        if (cause instanceof javax.net.ssl.SSLException) {
            return "TLS failed: " + cause.getMessage();
        }
        String msg = cause.getMessage();
        if (tls && msg != null && msg.contains("received no bytes")) {
            // TLS 1.3 lets the client finish its handshake before the server checks the client certificate, so a
            // rejected certificate often shows up as a connection closed without an answer, not as an alert
            return "TLS failed: the server closed the connection after the handshake without answering "
                    + "(client certificate missing or not accepted?)";
        }
        return cause.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }

    /** A non-200 answer: its status and etcd's message are the whole story. */
    private static final class HttpStatusError extends IOException {
        HttpStatusError(String message) {
            super(message);
        }
    }

    static String human(Duration d) {
        return Durations.format(d);
    }

    private static String display(URI uri) {
        String s = uri.toString();
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    private static void requireUsable(URI uri) {
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
            throw new InputException("--etcd-endpoint " + uri + ": expected http(s)://HOST:PORT, e.g. https://10.0.0.1:2379");
        }
    }
}
