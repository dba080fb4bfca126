package io.nodegate.source.kube;

import io.nodegate.CollectionException;
import io.nodegate.time.Durations;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one HTTP layer for reads (and the lean writes): {@link HttpURLConnection} with the target's TLS settings and
 * credentials, and a <b>total deadline</b> per request that covers connecting, the headers and the whole body. A
 * watchdog disconnects the request when the deadline passes, so a server (or proxy) that sends headers and then
 * trickles the body one byte at a time cannot hold a command: the call fails as a timeout naming the server.
 *
 * <p>Why not fabric8's client or {@code java.net.http}: measured in a fresh JVM, building fabric8's Config and client
 * cost 0.5-0.9 s and {@code java.net.http.HttpClient} ~0.14 s of start-up plus a slow exit; HttpURLConnection is
 * already loaded by the JDK and costs next to nothing (see bench/RESULTS.md).
 *
 * <p>This class knows nothing of Kubernetes statuses: it hands the answer (status, headers, body stream) to a
 * reader running inside the deadline; {@link ApiCalls} decides what a status means.
 */
public final class ApiHttp {

    /** Connect timeout: long enough for a WAN round trip, short enough to fail fast on a dead address. */
    public static final int CONNECT_TIMEOUT_MILLIS = 3_000;

    private static final ScheduledExecutorService WATCHDOG = watchdog();

    private final ApiTarget target;
    private final Duration requestTimeout;
    private volatile SSLSocketFactory sockets;
    private volatile SSLContext socketsFor;

    public ApiHttp(ApiTarget target, Duration requestTimeout) {
        this.target = target;
        this.requestTimeout = requestTimeout == null || requestTimeout.isZero() || requestTimeout.isNegative()
                ? Duration.ofSeconds(60) : requestTimeout;
    }

    public ApiTarget target() {
        return target;
    }

    /** API server URL without trailing slash. */
    public String server() {
        return target.server();
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** What a reader sees of an answer: status, headers and the body, all within the request's deadline. */
    public interface Answer {
        int status();

        /** A response header, or null. */
        String header(String name);

        /** The body (the error body for 4xx/5xx); reading past the deadline throws. Never null. */
        InputStream body();

        /** The full URL asked, for messages. */
        String url();

        /**
         * Closes the connection from another thread, without waiting: a reader blocked on the body fails (a watch
         * that is being stopped).
         */
        void abort();
    }

    /** Consumes one answer. Runs inside the deadline; what it returns is the call's result. */
    @FunctionalInterface
    public interface Reader<T> {
        T read(Answer answer) throws IOException;
    }

    /** GET {@code pathAndQuery} (starting with '/'). */
    public <T> T get(String what, String pathAndQuery, Reader<T> reader) {
        return send(what, "GET", pathAndQuery, null, null, reader);
    }

    /** GET {@code pathAndQuery} asking for {@code accept} (e.g. a Table of metadata) instead of application/json. */
    public <T> T get(String what, String pathAndQuery, String accept, Reader<T> reader) {
        return send(what, "GET", pathAndQuery, null, null, accept, requestTimeout, reader);
    }

    /**
     * One request with a total deadline of {@link #requestTimeout()}.
     *
     * @param what        how messages name the call, e.g. "LIST nodes"
     * @param contentType the body's type, or null without a body
     * @throws CollectionException when the server cannot be reached, the deadline passes, TLS fails or the
     *                             connection breaks; the message names the call and the server
     */
    public <T> T send(String what, String method, String pathAndQuery, String contentType, byte[] body,
                      Reader<T> reader) {
        return send(what, method, pathAndQuery, contentType, body, "application/json", requestTimeout, reader);
    }

    /**
     * A GET whose answer may take longer than {@link #requestTimeout()}: a watch, which the server holds open for
     * its {@code timeoutSeconds}. {@code deadline} bounds the whole answer all the same, so a connection that died
     * without a word cannot hold the caller for ever.
     */
    public <T> T stream(String what, String pathAndQuery, Duration deadline, Reader<T> reader) {
        return stream(what, pathAndQuery, "application/json", deadline, reader);
    }

    /** As {@link #stream(String, String, Duration, Reader)}, asking for {@code accept} (a watch of Tables). */
    public <T> T stream(String what, String pathAndQuery, String accept, Duration deadline, Reader<T> reader) {
        return send(what, "GET", pathAndQuery, null, null, accept, deadline, reader);
    }

    /**
     * As {@link #stream(String, String, String, Duration, Reader)}, and the status line and headers must arrive
     * within {@code headersWithin}: a server that accepts the request and never answers (an apiserver host that
     * lost power, its TCP half-open) fails the call then, not at the end of the whole stream's deadline.
     * kube-apiserver sends a watch's headers as soon as the watch is registered.
     */
    public <T> T stream(String what, String pathAndQuery, String accept, Duration headersWithin, Duration deadline,
                        Reader<T> reader) {
        return send(what, "GET", pathAndQuery, null, null, accept, deadline, headersWithin, null, reader);
    }

    /**
     * As {@link #stream(String, String, String, Duration, Duration, Reader)}, and a body that sends nothing for
     * {@code silentWithin} fails with {@link Silent}. This is the one way to end a read blocked on a half-open
     * connection at a chosen time: on JDK 17 a disconnect from another thread waits for the blocked chunked read
     * (they share a lock) until the server's next bytes, which never come, while the socket's read timeout ends the
     * read itself.
     */
    public <T> T stream(String what, String pathAndQuery, String accept, Duration headersWithin,
                        Duration silentWithin, Duration deadline, Reader<T> reader) {
        return send(what, "GET", pathAndQuery, null, null, accept, deadline, headersWithin, silentWithin, reader);
    }

    /** A stream sent nothing for longer than it was allowed to be silent (see {@link #stream}). */
    public static final class Silent extends CollectionException {
        Silent(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private <T> T send(String what, String method, String pathAndQuery, String contentType, byte[] body,
                       String accept, Duration within, Reader<T> reader) {
        return send(what, method, pathAndQuery, contentType, body, accept, within, null, null, reader);
    }

    private <T> T send(String what, String method, String pathAndQuery, String contentType, byte[] body,
                       String accept, Duration within, Duration headersWithin, Duration silentWithin,
                       Reader<T> reader) {
        String url = target.server() + pathAndQuery;
        long timeoutMillis = within.toMillis();
        Deadline deadline = new Deadline();
        HttpURLConnection conn = null;
        try {
            conn = open(url);
            HttpURLConnection c = conn;
            deadline.task = WATCHDOG.schedule(() -> {
                deadline.expired = true;
                disconnectWithoutWaiting(c);
            }, timeoutMillis, TimeUnit.MILLISECONDS);
            if (headersWithin != null && headersWithin.compareTo(within) < 0) {
                deadline.headersTask = WATCHDOG.schedule(() -> {
                    deadline.headersExpired = true;
                    disconnectWithoutWaiting(c);
                }, headersWithin.toMillis(), TimeUnit.MILLISECONDS);
            }
            conn.setRequestMethod(method);
            conn.setConnectTimeout((int) Math.min(CONNECT_TIMEOUT_MILLIS, timeoutMillis));
            long readTimeout = silentWithin == null ? timeoutMillis : Math.min(timeoutMillis, silentWithin.toMillis());
            conn.setReadTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, readTimeout)));
            conn.setInstanceFollowRedirects(false);
            conn.setUseCaches(false);
            conn.setRequestProperty("Accept", accept);
            conn.setRequestProperty("User-Agent", USER_AGENT);
            String auth = target.authorization();
            if (auth != null) {
                conn.setRequestProperty("Authorization", auth);
            }
            if (body != null) {
                conn.setDoOutput(true);
                conn.setRequestProperty("Content-Type", contentType);
                conn.setFixedLengthStreamingMode(body.length);
                try (OutputStream out = conn.getOutputStream()) {
                    out.write(body);
                }
            }
            int status = conn.getResponseCode();
            if (deadline.headersTask != null) {
                deadline.headersTask.cancel(false);
            }
            if (deadline.headersExpired) {
                throw new SocketTimeoutException("no status line and headers in time");
            }
            deadline.answered = true;
            InputStream raw = status >= 400 ? conn.getErrorStream() : conn.getInputStream();
            InputStream guarded = new Guarded(raw == null ? InputStream.nullInputStream() : raw, deadline);
            HttpURLConnection answered = conn;
            try (guarded) {
                return reader.read(new Answer() {
                    @Override
                    public int status() {
                        return status;
                    }

                    @Override
                    public String header(String name) {
                        return answered.getHeaderField(name);
                    }

                    @Override
                    public InputStream body() {
                        return guarded;
                    }

                    @Override
                    public String url() {
                        return url;
                    }

                    @Override
                    public void abort() {
                        disconnectWithoutWaiting(answered);
                    }
                });
            }
        } catch (IOException | RuntimeException thrown) {
            Throwable e = thrown instanceof java.io.UncheckedIOException u && u.getCause() != null ? u.getCause() : thrown;
            boolean connectTimeout = e instanceof SocketTimeoutException && String.valueOf(e.getMessage())
                    .toLowerCase(java.util.Locale.ROOT).contains("connect");
            if (deadline.headersExpired && !deadline.expired) {
                throw new CollectionException(what + ": no answer from API server " + target.server() + " within "
                        + Durations.format(headersWithin) + " (the request was sent; no status line or headers came "
                        + "back)", e);
            }
            if (!deadline.expired && deadline.answered && silentWithin != null && e instanceof SocketTimeoutException) {
                throw new Silent(what + ": nothing from API server " + target.server() + " for "
                        + Durations.format(silentWithin) + " (the stream is silent: closed)", e);
            }
            if (deadline.expired || e instanceof SocketTimeoutException && !connectTimeout) {
                throw timeout(what, within, e);
            }
            if (e instanceof RuntimeException r) {
                throw r; // CollectionException from the reader, or a bug: not a transport failure
            }
            throw failure(what, e);
        } finally {
            if (deadline.task != null) {
                deadline.task.cancel(false);
            }
            if (deadline.headersTask != null) {
                deadline.headersTask.cancel(false);
            }
        }
    }

    /**
     * Closes a connection from another thread without waiting for it. On JDK 17 {@code disconnect()} waits while a
     * reader is blocked on a chunked body (the stream's read and close share a lock) until the server sends its next
     * bytes: for a quiet watch that can be a minute, and the watchdog, one thread for every request, would wait with
     * it. The reader fails as soon as the socket is closed.
     */
    private static void disconnectWithoutWaiting(HttpURLConnection connection) {
        Thread closer = new Thread(connection::disconnect, "nodegate-http-disconnect");
        closer.setDaemon(true);
        closer.start();
    }

    private HttpURLConnection open(String url) throws IOException {
        URL u = java.net.URI.create(url).toURL();
        HttpURLConnection conn = (HttpURLConnection) u.openConnection(target.proxy().proxy());
        if (conn instanceof HttpsURLConnection https) {
            https.setSSLSocketFactory(socketFactory());
            if (target.insecureSkipTlsVerify()) {
                // insecure-skip-tls-verify: neither the chain nor the name is checked, as kubectl does with it
                https.setHostnameVerifier((host, session) -> true);
            }
        }
        return conn;
    }

    private SSLSocketFactory socketFactory() {
        SSLContext ctx = target.sslContext();
        if (sockets == null || socketsFor != ctx) {
            sockets = new IdentifiedSockets(ctx.getSocketFactory(), target.tlsServerName(),
                    !target.insecureSkipTlsVerify());
            socketsFor = ctx;
        }
        return sockets;
    }

    /** A timeout of the whole answer, in the wording the fault-matrix and users know. */
    private CollectionException timeout(String what, Duration within, Throwable cause) {
        return new CollectionException(what + ": no answer from API server " + target.server() + " within "
                + Durations.format(within) + " (the whole answer, headers and body"
                + (within.equals(requestTimeout) ? "; --request-timeout)" : ")"), cause);
    }

    private CollectionException failure(String what, Throwable e) {
        // e is an IOException here
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String server = target.server();
        if (e instanceof ConnectException || e instanceof UnknownHostException || e instanceof NoRouteToHostException
                || e instanceof SocketTimeoutException || root instanceof ConnectException) {
            return new CollectionException(what + ": cannot reach API server " + server + ": " + e, e);
        }
        if (e instanceof SSLHandshakeException || e instanceof SSLException) {
            return new CollectionException(what + ": TLS with API server " + server + " failed: " + root.getMessage()
                    + tlsHint(root), e);
        }
        if (e instanceof InterruptedIOException) {
            Thread.currentThread().interrupt();
            return new CollectionException(what + " at " + server + ": interrupted", e);
        }
        return new CollectionException(what + ": failed talking to API server " + server + ": " + e
                + (root != e ? " (" + root + ")" : ""), e);
    }

    private String tlsHint(Throwable root) {
        String m = String.valueOf(root.getMessage());
        if (m.contains("No subject alternative") || m.contains("No name matching")) {
            return " (the API server's certificate is not valid for that name"
                    + (target.tlsServerName() != null ? ", the kubeconfig's tls-server-name"
                    : "; set tls-server-name in the kubeconfig cluster if the server is reached under another name")
                    + ")";
        }
        if (m.contains("PKIX") || m.contains("unable to find valid certification path")) {
            return " (the server's certificate is not signed by the kubeconfig's certificate-authority"
                    + (target.caPem() == null ? " — none is set, so the JDK's trust store was used" : "") + ")";
        }
        if (m.contains("bad_certificate") || m.contains("certificate_required")) {
            return " (the server refused the client certificate)";
        }
        return "";
    }

    private static final class Deadline {
        volatile boolean expired;
        volatile ScheduledFuture<?> task;
        volatile boolean headersExpired;
        volatile boolean answered;
        volatile ScheduledFuture<?> headersTask;
    }

    /** The body, failing once the deadline has passed (the watchdog's disconnect ends a blocked read). */
    private static final class Guarded extends FilterInputStream {
        private final Deadline deadline;

        Guarded(InputStream in, Deadline deadline) {
            super(in);
            this.deadline = deadline;
        }

        private void check() throws IOException {
            if (deadline.expired) {
                throw new SocketTimeoutException("deadline passed while reading the answer");
            }
        }

        @Override
        public int read() throws IOException {
            check();
            return super.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            check();
            int n = super.read(b, off, len);
            check();
            return n;
        }
    }

    /**
     * TLS sockets whose server name the JDK checks: endpoint identification "HTTPS" (RFC 2818/6125 matching by the
     * JDK's {@code HostnameChecker}, IP addresses against IP entries) and, with tls-server-name, that name as both the
     * SNI and the socket's peer host. client-go checks the certificate against ServerName alone; the JDK's
     * {@code X509TrustManagerImpl.checkIdentity(SSLSession, ...)} checks the SNI name first and, when that fails and
     * differs from the peer host, "failover to check peer host" (JDK source, sun/security/ssl/X509TrustManagerImpl.java).
     * Giving the layered socket tls-server-name as its host makes both names the same, so exactly tls-server-name is
     * checked, as in client-go. Without tls-server-name the URL's host is checked (and sent as SNI unless it is an IP).
     */
    private static final class IdentifiedSockets extends SSLSocketFactory {
        private final SSLSocketFactory base;
        private final String serverName;
        private final boolean identify;

        IdentifiedSockets(SSLSocketFactory base, String serverName, boolean identify) {
            this.base = base;
            this.serverName = serverName;
            this.identify = identify;
        }

        @Override
        public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
            return identified(base.createSocket(s, serverName != null ? serverName : host, port, autoClose));
        }

        private Socket identified(Socket socket) {
            if (identify && socket instanceof SSLSocket ssl) {
                SSLParameters parameters = ssl.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                if (serverName != null) {
                    try {
                        parameters.setServerNames(List.of(new SNIHostName(serverName)));
                    } catch (IllegalArgumentException ipAddress) {
                        // an IP address is not sent as SNI (as in Go); it is still the name checked (the peer host)
                    }
                }
                ssl.setSSLParameters(parameters);
            }
            return socket;
        }

        @Override
        public String[] getDefaultCipherSuites() {
            return base.getDefaultCipherSuites();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return base.getSupportedCipherSuites();
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return identified(base.createSocket(host, port));
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return identified(base.createSocket(host, port, localHost, localPort));
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return identified(base.createSocket(host, port));
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                throws IOException {
            return identified(base.createSocket(address, port, localAddress, localPort));
        }

        // no createSocket() override: SocketFactory's default throws "unconnected sockets not implemented", so
        // HttpsURLConnection connects a plain socket (through the proxy, if any) and layers TLS over it with the
        // first method above, the one that sets the name
    }

    private static final String USER_AGENT = "nodegate/" + version();

    private static String version() {
        String v = ApiHttp.class.getPackage() == null ? null : ApiHttp.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private static ScheduledExecutorService watchdog() {
        ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "nodegate-request-deadline");
            t.setDaemon(true);
            return t;
        });
        exec.setRemoveOnCancelPolicy(true);
        return exec;
    }
}
