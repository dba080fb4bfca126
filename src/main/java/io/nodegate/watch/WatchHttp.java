package io.nodegate.watch;

import io.nodegate.render.AuditRenderer;
import io.nodegate.render.output.Structured;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The watch's HTTP endpoints: {@code /metrics} (Prometheus text), {@code /healthz} (the process answers),
 * {@code /readyz} (every kind's copy proven fresh and the last pass good and recent), {@code /findings} (the last good
 * pass in the `audit -o json` shape). Plain HTTP/1.1, GET and HEAD only, nothing secret served.
 *
 * <p>Slow clients cannot starve the probes. Field case: three connections that sent {@code GET /metrics HTTP/1.1}
 * and one header, then nothing, held both threads of the JDK's HttpServer (which has no request timeout) for as long
 * as they stayed open; the kubelet's liveness probe on /healthz then failed and restarted a healthy pod every minute.
 * So this small server:
 * <ul>
 *   <li>serves each connection on a thread of its own, up to {@link Limits#maxConnections} at once; a connection
 *       over the cap is answered 503 and closed at once, so an idle crowd never makes the probes wait in line;</li>
 *   <li>gives a request {@link Limits#requestTimeout} from its first byte to its last (request line, headers and
 *       any body, which a GET should not have and may not exceed {@link Limits#maxBody}), else closes it; a new
 *       connection that sends nothing is closed after the same time;</li>
 *   <li>keeps a connection between requests for {@link Limits#idleTimeout}, and gives each answer
 *       {@link Limits#answerTimeout} to be read by a client that reads slowly.</li>
 * </ul>
 */
public final class WatchHttp implements AutoCloseable {

    /**
     * @param maxConnections connections served at once (each holds one thread while open)
     * @param requestTimeout from a request's first byte to its last
     * @param idleTimeout    how long a kept-alive connection may wait for its next request
     * @param answerTimeout  how long an answer may take to be read
     * @param maxHead        bytes of request line and headers
     * @param maxBody        bytes of request body (a GET has none)
     */
    public record Limits(int maxConnections, Duration requestTimeout, Duration idleTimeout, Duration answerTimeout,
                         int maxHead, int maxBody) {
        /** 64 connections; 5 s per request (a probe's own timeout is 2 s); 30 s kept alive; 30 s per answer. */
        public static final Limits DEFAULTS = new Limits(64, Duration.ofSeconds(5), Duration.ofSeconds(30),
                Duration.ofSeconds(30), 16 * 1024, 8 * 1024);
    }

    private static final Set<String> PATHS = Set.of("/metrics", "/healthz", "/readyz", "/findings");

    private final ServerSocket server;
    private final Limits limits;
    private final WatchEngine engine;
    private final WatchMetrics metrics;
    private final Clock clock;
    private final Duration maxPassAge;
    private final AtomicInteger open = new AtomicInteger();
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "nodegate-watch-http");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nodegate-watch-http-deadline");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closed;

    /**
     * @param maxPassAge how old the last good pass may be for /readyz to pass (a few intervals)
     */
    public WatchHttp(InetSocketAddress listen, WatchEngine engine, WatchMetrics metrics, Clock clock,
                     Duration maxPassAge) throws IOException {
        this(listen, engine, metrics, clock, maxPassAge, Limits.DEFAULTS);
    }

    public WatchHttp(InetSocketAddress listen, WatchEngine engine, WatchMetrics metrics, Clock clock,
                     Duration maxPassAge, Limits limits) throws IOException {
        this.limits = limits;
        this.engine = engine;
        this.metrics = metrics;
        this.clock = clock;
        this.maxPassAge = maxPassAge;
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        try {
            socket.bind(listen, 128);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        this.server = socket;
        Thread acceptor = new Thread(this::accept, "nodegate-watch-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (open.incrementAndGet() > limits.maxConnections()) {
                open.decrementAndGet();
                refuse(client);
                continue;
            }
            connections.add(client);
            try {
                threads.execute(() -> serve(client));
            } catch (RuntimeException rejected) {
                connections.remove(client);
                open.decrementAndGet();
                closeQuietly(client);
            }
        }
    }

    /** Over the cap: one short answer into the socket's send buffer (never blocks), then close. */
    private void refuse(Socket client) {
        try (client) {
            byte[] body = "too many connections\n".getBytes(StandardCharsets.UTF_8);
            client.getOutputStream().write(("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; "
                    + "charset=utf-8\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            client.getOutputStream().write(body);
        } catch (IOException ignored) {
            // it went away first
        }
    }

    private void serve(Socket client) {
        try (client) {
            client.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(client.getInputStream(), 4096);
            OutputStream out = client.getOutputStream();
            boolean first = true;
            while (!closed) {
                Request request = readRequest(client, in, first ? limits.requestTimeout() : limits.idleTimeout());
                first = false;
                if (request == null) {
                    return;
                }
                boolean keepAlive = request.keepAlive() && request.error() == 0;
                Answer answer = request.error() != 0 ? plain(request.error(), request.errorText())
                        : answer(request);
                write(client, out, request.method(), answer, keepAlive);
                if (!keepAlive) {
                    if (request.error() != 0) {
                        lingeringClose(client, in);
                    }
                    return;
                }
            }
        } catch (IOException gone) {
            // the client left, or a timeout closed it
        } finally {
            connections.remove(client);
            open.decrementAndGet();
        }
    }

    /**
     * One request line, its headers and any body, within {@link Limits#requestTimeout} of its first byte; null: the
     * client left, or sent nothing within {@code firstByteWithin} (the request timeout on a new connection, the idle
     * timeout between kept-alive requests).
     */
    private Request readRequest(Socket client, InputStream in, Duration firstByteWithin) throws IOException {
        client.setSoTimeout((int) Math.max(1, firstByteWithin.toMillis()));
        int first;
        try {
            first = in.read();
        } catch (SocketTimeoutException idle) {
            return null;
        }
        if (first < 0) {
            return null;
        }
        long deadline = System.nanoTime() + limits.requestTimeout().toNanos();
        ByteArrayOutputStream head = new ByteArrayOutputStream(256);
        head.write(first);
        int lastFour = first;
        while (lastFour != 0x0D0A0D0A) {
            int c = readBefore(client, in, deadline);
            if (c < 0) {
                return null;
            }
            head.write(c);
            lastFour = (lastFour << 8) | c;
            if (head.size() > limits.maxHead()) {
                return Request.refused(431, "request header fields too large");
            }
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] start = lines[0].split(" ");
        if (start.length != 3 || !start[2].startsWith("HTTP/1.")) {
            return Request.refused(400, "bad request line");
        }
        boolean http10 = "HTTP/1.0".equals(start[2]);
        boolean close = http10;
        long length = 0;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> {
                    try {
                        length = Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        return Request.refused(400, "bad Content-Length");
                    }
                }
                case "transfer-encoding" -> {
                    return Request.refused(411, "a request body must have a Content-Length");
                }
                case "connection" -> {
                    if (value.toLowerCase(Locale.ROOT).contains("close")) {
                        close = true;
                    } else if (http10 && value.toLowerCase(Locale.ROOT).contains("keep-alive")) {
                        close = false;
                    }
                }
                default -> {
                }
            }
        }
        if (length < 0 || length > limits.maxBody()) {
            return Request.refused(413, "request body too large");
        }
        for (long left = length; left > 0; left--) {
            if (readBefore(client, in, deadline) < 0) {
                return null;
            }
        }
        String target = start[1];
        int query = target.indexOf('?');
        return new Request(start[0], query < 0 ? target : target.substring(0, query), !close, 0, null);
    }

    /**
     * After refusing a request whose bytes were not all read: stop sending, then read what is still coming (briefly,
     * boundedly) before closing, so the close does not reset the connection before the client read the refusal.
     */
    private static void lingeringClose(Socket client, InputStream in) {
        try {
            client.shutdownOutput();
            client.setSoTimeout(500);
            byte[] sink = new byte[8192];
            int total = 0;
            int n;
            while (total < 256 * 1024 && (n = in.read(sink)) >= 0) {
                total += n;
            }
        } catch (IOException ignored) {
            // closed or timed out: close now
        }
    }

    private static int readBefore(Socket client, InputStream in, long deadline) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("request not complete in time");
        }
        client.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        return in.read();
    }

    private record Request(String method, String path, boolean keepAlive, int error, String errorText) {
        static Request refused(int code, String why) {
            return new Request("GET", "", false, code, why);
        }
    }

    private record Answer(int code, String type, byte[] body, String allow) {
    }

    private Answer answer(Request request) {
        if (!PATHS.contains(request.path())) {
            return plain(404, "not found: " + request.path() + " (try /metrics, /healthz, /readyz, /findings)");
        }
        if (!"GET".equals(request.method()) && !"HEAD".equals(request.method())) {
            return new Answer(405, "text/plain; charset=utf-8", "only GET\n".getBytes(StandardCharsets.UTF_8),
                    "GET, HEAD");
        }
        return switch (request.path()) {
            case "/metrics" -> new Answer(200, "text/plain; version=0.0.4; charset=utf-8",
                    metrics.render().getBytes(StandardCharsets.UTF_8), null);
            case "/healthz" -> plain(200, "ok");
            case "/readyz" -> {
                List<String> problems = Readiness.problems(engine, clock, maxPassAge);
                yield problems.isEmpty() ? plain(200, "ok")
                        : plain(503, "not ready:\n- " + String.join("\n- ", problems));
            }
            default -> {
                WatchEngine.Pass good = engine.lastGood();
                yield good == null ? plain(503, "no evaluation pass has run on fresh data yet")
                        : new Answer(200, "application/json", Structured.json(AuditRenderer.tree(good.report()))
                        .getBytes(StandardCharsets.UTF_8), null);
            }
        };
    }

    private static Answer plain(int code, String text) {
        return new Answer(code, "text/plain; charset=utf-8", (text + "\n").getBytes(StandardCharsets.UTF_8), null);
    }

    /** Writes one answer; a client that does not read it within the answer timeout is disconnected. */
    private void write(Socket client, OutputStream out, String method, Answer answer, boolean keepAlive)
            throws IOException {
        StringBuilder head = new StringBuilder(256).append("HTTP/1.1 ").append(answer.code()).append(' ')
                .append(reason(answer.code())).append("\r\nContent-Type: ").append(answer.type())
                .append("\r\nContent-Length: ").append(answer.body().length)
                .append("\r\nDate: ").append(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)))
                .append("\r\nCache-Control: no-store");
        if (answer.allow() != null) {
            head.append("\r\nAllow: ").append(answer.allow());
        }
        head.append("\r\nConnection: ").append(keepAlive ? "keep-alive" : "close").append("\r\n\r\n");
        ScheduledFuture<?> cut = deadlines.schedule(() -> closeQuietly(client), limits.answerTimeout().toMillis(),
                TimeUnit.MILLISECONDS);
        try {
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            if (!"HEAD".equals(method)) {
                out.write(answer.body());
            }
            out.flush();
        } finally {
            cut.cancel(false);
        }
    }

    private static String reason(int code) {
        return switch (code) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 411 -> "Length Required";
            case 413 -> "Content Too Large";
            case 431 -> "Request Header Fields Too Large";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** Connections open now (for tests). */
    int openConnections() {
        return open.get();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        for (Socket s : new ArrayList<>(connections)) {
            closeQuietly(s);
        }
        threads.shutdownNow();
        deadlines.shutdownNow();
    }

    /** Why the watch is not ready; empty when it is. */
    public static final class Readiness {
        private Readiness() {
        }

        /**
         * Not ready while any kind's copy is not proven fresh (not listed, listing again, backing off, a watch request
         * unanswered, no event or bookmark within its idle limit, proved behind), before the first good pass, when
         * the last good pass is older than {@code maxPassAge}, or when the last pass failed or was held.
         */
        public static List<String> problems(WatchEngine engine, Clock clock, Duration maxPassAge) {
            List<String> out = new ArrayList<>();
            engine.cache().unhealthy().forEach(k -> out.add("informer " + k));
            WatchEngine.Pass good = engine.lastGood();
            if (good == null) {
                out.add("no evaluation pass on fresh data yet");
            } else if (Duration.between(good.at(), clock.instant()).compareTo(maxPassAge) > 0) {
                out.add("last good evaluation pass at " + good.at() + " is older than " + maxPassAge.toSeconds() + " s");
            }
            WatchEngine.Pass last = engine.last();
            if (last != null && !last.ok()) {
                out.add("last pass failed: " + last.error());
            }
            return out;
        }
    }
}
