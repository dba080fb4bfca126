package io.nodegate.source.bmc;

import io.nodegate.time.Durations;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.NoRouteToHostException;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * HTTP to one BMC, one request at a time (BMCs are slow and serve few connections), each with a total deadline that
 * covers connecting, the headers and the body: a watchdog closes the connection when it passes.
 *
 * <p><b>Read-only, enforced here.</b> Every request goes through {@link #send}, which refuses anything but a GET,
 * the one POST that opens a session (to the SessionService's Sessions collection, and only while none is open) and
 * the DELETE of that session. There is no way to send PATCH, PUT, or a POST to an action such as
 * {@code ComputerSystem.Reset} through this class.
 */
final class RedfishHttp {

    /** A BMC answer larger than this is not a Redfish resource nodegate needs (a SEL page is a few hundred KB). */
    static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final ScheduledExecutorService WATCHDOG = watchdog();

    private final String base;
    private final BmcTls tls;
    private final Duration timeout;
    private final RequestLog requests;
    private final AtomicReference<HttpURLConnection> current = new AtomicReference<>();
    private volatile boolean aborted;
    private String authorization;
    /** The Sessions collection a session may be opened at (set just before the login POST). */
    private String sessionsCollection;
    /** The URI of the session this client opened, as the BMC gave it; null when none is open. */
    private String openSession;
    /** That session's X-Auth-Token: a secret, sent as a header and nowhere else. */
    private String sessionToken;
    /** Why the session in use cannot be closed (its URI is outside the Sessions collection); null when it can. */
    private String leftOpen;

    /** Where each request is recorded (method and path), for tests and the --v log; never headers or bodies. */
    interface RequestLog {
        RequestLog NONE = (method, path) -> { };

        void sent(String method, String path);
    }

    RedfishHttp(String base, BmcTls tls, Duration timeout, RequestLog requests) {
        this.base = base;
        this.tls = tls;
        this.timeout = timeout;
        this.requests = requests == null ? RequestLog.NONE : requests;
    }

    /** An answer that was read whole: status, body, and the headers nodegate uses. */
    record Answer(int status, byte[] body, String location, String authToken) {
    }

    /** Sends HTTP Basic with every request from now on. */
    void useBasic(BmcCredentials credentials) {
        authorization = credentials.basicAuthorization();
    }

    /** GET a resource: the JSON object of a 200, a NotFound {@link BmcException} for a 404, else an error. */
    JsonNode get(String path) {
        Answer a = send("GET", path, null);
        if (a.status() == 404) {
            throw new BmcException("GET " + path + ": HTTP 404 (not found)", true, null);
        }
        requireOk(a, "GET " + path);
        return parse(a, "GET " + path);
    }

    JsonNode parse(Answer a, String what) {
        try {
            JsonNode node = JSON.readTree(a.body());
            if (node == null || !node.isObject()) {
                throw new BmcException(what + ": the answer is not a JSON object: not a Redfish resource");
            }
            return node;
        } catch (JacksonException e) {
            throw new BmcException(what + ": the answer is not JSON: not a Redfish resource");
        }
    }

    /**
     * Opens a session (DSP0266 "Session login"): POST UserName/Password to the Sessions collection; the token comes
     * back in X-Auth-Token, the session's URI in Location (iLO 4 sends no @odata.id in the body). From then on every
     * request carries the token instead of the password.
     */
    void openSession(String sessions, BmcCredentials credentials) {
        if (openSession != null) {
            throw new IllegalStateException("a session is already open on this BMC");
        }
        sessionsCollection = sessions;
        byte[] body = JSON.writeValueAsBytes(credentials.sessionLogin());
        Answer a = send("POST", sessions, body);
        if (a.status() != 201 && a.status() != 200) {
            throw new BmcException("session login (POST " + sessions + ") answered HTTP " + a.status()
                    + statusHint(a.status()) + redfishMessageIds(a));
        }
        if (a.authToken() == null || a.authToken().isBlank()) {
            throw new BmcException("session login (POST " + sessions + ") answered HTTP " + a.status()
                    + " without an X-Auth-Token header");
        }
        String location = a.location();
        if (location == null) {
            JsonNode parsed = parse(a, "session login");
            location = parsed.path("@odata.id").asString(null);
        }
        if (location == null) {
            throw new BmcException("session login (POST " + sessions + ") answered without the session's URI "
                    + "(no Location header, no @odata.id): it could not be closed again, so it is not used");
        }
        authorization = null;
        sessionToken = a.authToken();
        String path;
        try {
            path = onThisBmc(location);
        } catch (BmcException e) {
            path = null;
        }
        if (path == null || !underCollection(path, sessions)) {
            // a DELETE of anything else could remove what is not ours (an account: Accounts/2): never sent. The
            // session works, and ends by the BMC's SessionTimeout
            leftOpen = "the session login answered the URI '" + printable(location) + "', which is not under the "
                    + "Sessions collection " + sessions + ": nodegate deletes nothing else, so the session stays open "
                    + "until the BMC's SessionTimeout";
            return;
        }
        openSession = path;
    }

    /** Why the session used could not be closed, or null (none was opened, or it can be closed). */
    String sessionLeftOpen() {
        return leftOpen;
    }

    /** A member of the collection: {@code /redfish/v1/SessionService/Sessions/7}, one segment below it. */
    static boolean underCollection(String path, String collection) {
        String p = trimSlash(path);
        String c = trimSlash(collection);
        if (!p.startsWith(c + "/")) {
            return false;
        }
        String rest = p.substring(c.length() + 1);
        return !rest.isEmpty() && !rest.contains("/") && !rest.contains("?") && !rest.contains("#")
                && !rest.equals("..") && !rest.equals(".") && !rest.contains("%");
    }

    /**
     * The path on this BMC that a link names. Redfish links are paths ({@code /redfish/v1/Systems/1}); an absolute URL
     * is accepted only when it names this BMC (same scheme, host and port). Anything else (another host, or text such as
     * {@code @127.0.0.2:8443/redfish/v1/Systems} that would turn the BMC's address into a user name) is refused: no
     * request, and no credentials, ever go to a host other than the BMC given.
     */
    String onThisBmc(String link) {
        String l = link == null ? "" : link.strip();
        if (l.startsWith("/") && !l.startsWith("//")) {
            return l;
        }
        try {
            URI u = new URI(l);
            URI b = URI.create(base);
            if (u.getScheme() != null && u.getScheme().equalsIgnoreCase(b.getScheme()) && u.getRawUserInfo() == null
                    && u.getHost() != null && u.getHost().equalsIgnoreCase(b.getHost())
                    && port(u) == port(b)) {
                String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
                return u.getRawQuery() == null ? path : path + "?" + u.getRawQuery();
            }
        } catch (URISyntaxException e) {
            // refused below
        }
        throw new BmcException("the BMC linked '" + printable(l) + "', which is not a path on " + base + ": not "
                + "followed (requests and credentials go only to the BMC given)");
    }

    private static int port(URI u) {
        return u.getPort() >= 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    /** Text from a BMC as it may be printed: control characters replaced, at most 200 characters. */
    static String printable(String text) {
        String t = text == null ? "" : text.replaceAll("\\p{Cntrl}", "?");
        return t.length() > 200 ? t.substring(0, 200) + "..." : t;
    }

    /** Closes the session this client opened (DELETE of its URI); nothing when none is open. */
    void closeSession() {
        if (openSession == null) {
            return;
        }
        try {
            Answer a = send("DELETE", openSession, null);
            if (a.status() != 200 && a.status() != 204 && a.status() != 404) {
                throw new BmcException("logging out (DELETE " + openSession + ") answered HTTP " + a.status()
                        + ": the session stays open until the BMC's SessionTimeout");
            }
        } finally {
            openSession = null;
            sessionToken = null;
        }
    }

    boolean sessionOpen() {
        return openSession != null;
    }

    /** Closes the request in flight, from another thread (the overall deadline passed). */
    void abort() {
        aborted = true;
        HttpURLConnection c = current.get();
        if (c != null) {
            disconnectWithoutWaiting(c);
        }
    }

    /**
     * The one way out. Refuses, before anything is sent, every request a reader has no business sending: the guard is
     * here so that no caller, present or future, can change a BMC through this class.
     */
    private Answer send(String method, String link, byte[] body) {
        String path = onThisBmc(link);
        allow(method, path, sessionsCollection, openSession);
        if (aborted && !"DELETE".equals(method)) {
            throw new BmcException(method + " " + path + ": stopped (the overall deadline passed)");
        }
        String url = base + path;
        URI target;
        try {
            target = new URI(url);
        } catch (URISyntaxException e) {
            throw new BmcException(method + " '" + printable(path) + "': not a URI path: not sent");
        }
        URI own = URI.create(base);
        if (target.getRawUserInfo() != null || target.getHost() == null || !own.getHost().equalsIgnoreCase(target.getHost())
                || port(own) != port(target)) {
            throw new BmcException(method + " '" + printable(path) + "': not a path on " + base + ": not sent");
        }
        requests.sent(method, path);
        Deadline deadline = new Deadline();
        HttpURLConnection conn = null;
        try {
            conn = (HttpURLConnection) target.toURL().openConnection(Proxy.NO_PROXY);
            HttpURLConnection c = conn;
            current.set(c);
            // abort() may have run between the check above and the line before this one, when it found no
            // connection to close: look again now that it would find this one (both fields are volatile)
            if (aborted && !"DELETE".equals(method)) {
                disconnectWithoutWaiting(c);
                throw new BmcException(method + " " + path + ": stopped (the overall deadline passed)");
            }
            deadline.task = WATCHDOG.schedule(() -> {
                deadline.expired = true;
                disconnectWithoutWaiting(c);
            }, timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (conn instanceof HttpsURLConnection https) {
                https.setSSLSocketFactory(tls.context().getSocketFactory());
                if (tls.skipsVerification()) {
                    https.setHostnameVerifier((host, session) -> true);
                }
            }
            conn.setRequestMethod(method);
            conn.setConnectTimeout((int) Math.min(timeout.toMillis(), Integer.MAX_VALUE));
            conn.setReadTimeout((int) Math.min(timeout.toMillis(), Integer.MAX_VALUE));
            conn.setInstanceFollowRedirects(false);
            conn.setUseCaches(false);
            conn.setRequestProperty("Accept", "application/json");
            // DSP0266: clients send OData-Version 4.0
            conn.setRequestProperty("OData-Version", "4.0");
            conn.setRequestProperty("User-Agent", "nodegate (read-only)");
            if (sessionToken != null) {
                conn.setRequestProperty("X-Auth-Token", sessionToken);
            } else if (authorization != null) {
                conn.setRequestProperty("Authorization", authorization);
            }
            if (body != null) {
                conn.setDoOutput(true);
                conn.setRequestProperty("Content-Type", "application/json");
                conn.setFixedLengthStreamingMode(body.length);
                try (OutputStream out = conn.getOutputStream()) {
                    out.write(body);
                }
            }
            int status = conn.getResponseCode();
            byte[] bytes;
            InputStream in = status >= 400 ? conn.getErrorStream() : conn.getInputStream();
            try {
                bytes = in == null ? new byte[0] : readCapped(in, method + " " + path, !"DELETE".equals(method),
                        deadline);
            } catch (IOException | RuntimeException unread) {
                // Never close an answer that was not read to its end: the JDK's keep-alive stream would drain the
                // rest to reuse the connection (under a lock that the next request's close waits for, and in its
                // shared cleaner thread), and a BMC that trickles its body is read for the whole request timeout,
                // past the overall deadline. The connection is dropped instead.
                disconnectWithoutWaiting(conn);
                throw unread;
            }
            if (in != null) {
                in.close(); // read to its end: nothing is left to drain
            }
            if (deadline.expired) {
                throw new SocketTimeoutException("deadline");
            }
            return new Answer(status, bytes, conn.getHeaderField("Location"), conn.getHeaderField("X-Auth-Token"));
        } catch (IOException | RuntimeException e) {
            if (e instanceof BmcException b) {
                throw b;
            }
            if (deadline.expired || e instanceof SocketTimeoutException) {
                throw new BmcException(method + " " + path + ": no answer within " + Durations.format(timeout)
                        + " (--bmc-timeout)", e);
            }
            if (aborted) {
                throw new BmcException(method + " " + path + ": stopped (the overall deadline passed)", e);
            }
            throw failure(method + " " + path, e);
        } finally {
            current.compareAndSet(conn, null);
            if (deadline.task != null) {
                deadline.task.cancel(false);
            }
        }
    }

    /**
     * The guard: GET anything; POST only to the Sessions collection, and only to open the one session; DELETE only of
     * the session opened. Everything else (PATCH, PUT, a POST to an action) is refused before it is sent.
     */
    static void allow(String method, String path, String sessionsCollection, String openSession) {
        boolean ok = switch (method) {
            case "GET" -> true;
            case "POST" -> sessionsCollection != null && openSession == null
                    && samePath(path, sessionsCollection);
            case "DELETE" -> openSession != null && samePath(path, openSession) && sessionsCollection != null
                    && underCollection(path, sessionsCollection);
            default -> false;
        };
        if (!ok) {
            throw new IllegalStateException("nodegate only reads BMCs: refusing " + method + " " + path
                    + " (allowed: GET, the session login POST and the DELETE of that session)");
        }
    }

    /**
     * The body, up to the cap. Between reads it looks at the overall deadline: a body that trickles in a byte at a
     * time ends at the next byte after abort(), even if closing the connection from the other thread did not reach
     * a socket that was still being set up when abort() ran.
     */
    /**
     * Reads the answer to its end, stopping between reads once the request's deadline has passed: the watchdog's
     * disconnect should end a blocked read, but closing a TLS socket from another thread can wait (seen on a loaded
     * machine: a 3 s request timeout ended after 39 s), and a BMC that trickles a byte a second makes every single
     * read return in time. So the reader looks at the deadline itself after every read, as it does for the overall one.
     */
    private byte[] readCapped(InputStream in, String what, boolean stopOnAbort, Deadline deadline) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) != -1) {
            if (deadline.expired) {
                throw new SocketTimeoutException("deadline");
            }
            if (stopOnAbort && aborted) {
                throw new BmcException(what + ": stopped (the overall deadline passed)");
            }
            out.write(buffer, 0, n);
            if (out.size() > MAX_BODY_BYTES) {
                throw new BmcException(what + ": the answer is larger than " + (MAX_BODY_BYTES >> 20) + " MiB: "
                        + "not a Redfish resource nodegate reads");
            }
        }
        return out.toByteArray();
    }

    private void requireOk(Answer a, String what) {
        if (a.status() != 200) {
            throw new BmcException(what + ": HTTP " + a.status() + statusHint(a.status()) + redfishMessageIds(a));
        }
    }

    private static String statusHint(int status) {
        return switch (status) {
            case 401 -> " (the BMC refused the credentials)";
            case 403 -> " (the account may not read this)";
            case 503 -> " (the BMC is busy or not ready)";
            default -> status >= 300 && status < 400 ? " (a redirect: give the URL the BMC serves Redfish on)" : "";
        };
    }

    /** The MessageIds of a Redfish error answer (never its free text, which a BMC may fill with what it was sent). */
    private static String redfishMessageIds(Answer a) {
        try {
            JsonNode err = JSON.readTree(a.body()).path("error");
            java.util.List<String> ids = new java.util.ArrayList<>();
            err.path("@Message.ExtendedInfo").forEach(m -> {
                String id = m.path("MessageId").asString(null);
                if (id != null && id.matches("[A-Za-z0-9_.]{1,80}")) {
                    ids.add(id);
                }
            });
            return ids.isEmpty() ? "" : " [" + String.join(", ", ids) + "]";
        } catch (RuntimeException e) {
            return "";
        }
    }

    private BmcException failure(String what, Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (e instanceof UnknownHostException) {
            return new BmcException(what + ": unknown host", e);
        }
        if (e instanceof ConnectException || e instanceof NoRouteToHostException || root instanceof ConnectException) {
            return new BmcException(what + ": cannot connect (" + root.getMessage() + ")", e);
        }
        if (e instanceof SSLException) {
            String m = String.valueOf(root.getMessage());
            String hint = m.contains("PKIX") || m.contains("certification path")
                    ? " (the certificate does not chain to " + tls.describe() + "; give the BMC's CA with --bmc-ca)"
                    : m.contains("No subject alternative") || m.contains("doesn't match")
                    ? " (the certificate does not name this host)" : "";
            return new BmcException(what + ": TLS failed, the certificate was not accepted: " + m + hint, e);
        }
        return new BmcException(what + ": " + e.getClass().getSimpleName() + (e.getMessage() == null ? ""
                : " " + e.getMessage()), e);
    }

    /** The path (and query) of a Location header or a next link, absolute (https://bmc/redfish/...) or not. */
    static String pathOf(String location) {
        String l = location.strip();
        if (l.startsWith("/")) {
            return l;
        }
        try {
            URI u = URI.create(l);
            String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
            // a next page's link carries its place in the query ($skip=...): keep it
            return u.getRawQuery() == null ? path : path + "?" + u.getRawQuery();
        } catch (IllegalArgumentException e) {
            throw new BmcException("the session's Location '" + l + "' is not a URI");
        }
    }

    /** The same resource: Redfish URIs compare without a trailing slash (DSP0266 allows either). */
    static boolean samePath(String a, String b) {
        return trimSlash(a).equals(trimSlash(b));
    }

    private static String trimSlash(String path) {
        String p = path.strip();
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }


    /** Closes a connection from another thread without waiting (JDK 17's disconnect can block on a chunked read). */
    private static void disconnectWithoutWaiting(HttpURLConnection connection) {
        Thread closer = new Thread(connection::disconnect, "nodegate-bmc-disconnect");
        closer.setDaemon(true);
        closer.start();
    }

    private static final class Deadline {
        volatile boolean expired;
        volatile ScheduledFuture<?> task;
    }

    private static ScheduledExecutorService watchdog() {
        ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "nodegate-bmc-deadline");
            t.setDaemon(true);
            return t;
        });
        exec.setRemoveOnCancelPolicy(true);
        return exec;
    }
}
