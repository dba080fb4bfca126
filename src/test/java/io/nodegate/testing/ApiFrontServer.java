package io.nodegate.testing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * The front door of {@link ApiTestServer}: a small HTTP/1.1 server on loopback that passes every request to
 * the fabric8 mock byte for byte, except the one kind of request the mock cannot answer: an <b>HTTP streaming
 * watch</b> ({@code GET <collection>?watch=true} without a WebSocket upgrade), which is how client-go, kubectl
 * and nodegate's own lean client watch. The mock serves watches only as WebSocket sessions and its answers have
 * no streaming body, so the front opens a WebSocket watch to the mock (same path, query and headers, so the
 * mock's selectors, {@code failOn}, the bearer token check, counting and the request log all apply) and relays
 * each text frame as one line of a chunked {@code application/json} body, flushed at once, as kube-apiserver
 * does. A refused upgrade (410, 401, 404, 500, ...) is answered with that status and the mock's Status body.
 *
 * <p>How the stream ends, as on a real server: the mock closes the watch (after the ERROR 410 event of
 * {@code expireWatches()}) → the chunked body ends; {@code timeoutSeconds=N} → the body ends cleanly after N
 * seconds; the client goes away → the watch to the mock is closed, so {@code openWatches()} drops. To notice a
 * client that leaves while no event flows, a watch stream owns its connection (the answer says
 * {@code Connection: close}); all other answers keep the connection alive.
 *
 * <p>A WebSocket upgrade (a fabric8 client's watch) is refused with 400: nothing nodegate runs watches that way, and
 * a test that starts one by mistake should fail rather than pass on a path users never take.
 *
 * <p>Faults of a dead or broken apiserver, which only a front that owns the connections can play:
 * <ul>
 *   <li>{@link #freezeOpenWatches()}: every open HTTP watch stream stops for good, its connection open, no byte and
 *       no FIN (its timeoutSeconds no longer ends it): the half-open TCP of an apiserver host that lost power;</li>
 *   <li>{@link #hold(Predicate)}: matching requests are read and never answered, their connections held open (they
 *       stay so after {@link #hold(Predicate) hold(null)}: the host is gone, new connections go elsewhere);</li>
 *   <li>{@link #endWatchesAtOnce(boolean)}: every new HTTP watch answers 200 and ends at once, with no event;</li>
 *   <li>{@link #dropOpenWatches()}: every open HTTP watch ends now, cleanly, as at its timeoutSeconds;</li>
 *   <li>{@link #delayAnswers(Predicate, java.time.Duration)}: matching requests reach the store at once, their
 *       answers come back that much later (slow POSTs whose writes have landed).</li>
 * </ul>
 * Requests made by the test's own setup client ({@code isSetup}) are never held, frozen or delayed.
 */
final class ApiFrontServer implements AutoCloseable {

    private static final int MAX_HEAD_BYTES = 64 * 1024;
    private static final int CRLF_CRLF = 0x0D0A0D0A;
    private static final Object END = new Object();
    /** The client closed its side of an HTTP watch (a frozen stream ends only on this). */
    private static final Object CLIENT_GONE = new Object();
    /** Headers a WebSocket handshake sets itself (the JDK refuses them) or that describe this hop only. */
    private static final Set<String> NOT_RELAYED = Set.of("host", "connection", "upgrade", "content-length",
            "transfer-encoding", "expect", "keep-alive", "te", "trailer", "accept-encoding", "proxy-connection",
            "http2-settings");

    private final String upstreamHost;
    private final int upstreamPort;
    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "api-test-server-front");
        t.setDaemon(true);
        return t;
    });
    /** One client for every relayed watch (no per-request client creation: it would cost a thread pool each). */
    private final HttpClient webSockets;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private final java.util.function.Function<Head, java.util.function.UnaryOperator<String>> watchLines;
    private final Predicate<Head> isSetup;
    private final Set<WatchStream> streams = ConcurrentHashMap.newKeySet();
    private volatile Predicate<Head> held;
    private volatile boolean endWatchesAtOnce;
    /** When {@link #freezeOpenWatches()} / {@link #dropOpenWatches()} were last called (nanoTime); null: never. */
    private volatile Long frozenBefore;
    private volatile Long droppedBefore;
    private volatile Predicate<Head> delayed;
    private volatile long delayNanos;

    /**
     * @param watchLines for one HTTP watch request (its head), what each relayed event line becomes before it is
     *                   sent (the server's Accept negotiation; it may note what was sent); null or a null answer
     *                   sends the lines as the mock wrote them
     */
    ApiFrontServer(String bindHost, String upstreamHost, int upstreamPort,
                   java.util.function.Function<Head, java.util.function.UnaryOperator<String>> watchLines) {
        this(bindHost, upstreamHost, upstreamPort, watchLines, head -> false);
    }

    /** @param isSetup requests of the test's own setup, which the faults below never touch */
    ApiFrontServer(String bindHost, String upstreamHost, int upstreamPort,
                   java.util.function.Function<Head, java.util.function.UnaryOperator<String>> watchLines,
                   Predicate<Head> isSetup) {
        this.watchLines = watchLines;
        this.isSetup = isSetup;
        this.upstreamHost = upstreamHost;
        this.upstreamPort = upstreamPort;
        this.webSockets = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(threads).build();
        try {
            this.server = new ServerSocket(0, 100, InetAddress.getByName(bindHost));
        } catch (IOException e) {
            throw new IllegalStateException("cannot open the test API server's front port on " + bindHost, e);
        }
        threads.execute(this::acceptLoop);
    }

    int port() {
        return server.getLocalPort();
    }

    /**
     * Every HTTP watch stream open now goes silent for good: connection open, no byte, no FIN. So do the ones whose
     * request was accepted before and that are still opening (else a watch opening at that instant would escape).
     */
    void freezeOpenWatches() {
        frozenBefore = System.nanoTime();
        streams.forEach(w -> w.frozen = true);
    }

    /** Every HTTP watch stream open now (or opening) ends cleanly (its last chunk sent), as at its timeoutSeconds. */
    void dropOpenWatches() {
        droppedBefore = System.nanoTime();
        streams.forEach(w -> w.endNow = true);
    }

    /** From now on, requests that match are read and never answered (null: answer again; held ones stay held). */
    void hold(Predicate<Head> which) {
        this.held = which;
    }

    /** From now on every new HTTP watch answers 200 and ends at once, with no event (or not, with false). */
    void endWatchesAtOnce(boolean atOnce) {
        this.endWatchesAtOnce = atOnce;
    }

    /** Answers to matching requests are sent {@code by} later; the request itself reaches the store at once. */
    void delayAnswers(Predicate<Head> which, java.time.Duration by) {
        this.delayNanos = by.toNanos();
        this.delayed = which;
    }

    /** HTTP watch streams open now (frozen ones included). */
    int openStreams() {
        return streams.size();
    }

    private boolean faultsApply(Head request, Predicate<Head> which) {
        return which != null && !isSetup.test(request) && which.test(request);
    }

    /** A held request: read whatever else comes and never answer, until the client or the server closes. */
    private static void holdForever(InputStream in) {
        try {
            while (in.read() >= 0) {
                // nothing is answered
            }
        } catch (IOException closed) {
            // the client gave up (or the server closed)
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                connections.add(client);
                threads.execute(() -> serve(client));
            } catch (IOException e) {
                if (!closed) {
                    // a failed accept on loopback is transient; keep serving
                    continue;
                }
                return;
            }
        }
    }

    /** One client connection: HTTP/1.1 requests one after another (keep-alive) until either side closes. */
    private void serve(Socket client) {
        Upstream upstream = new Upstream();
        try (client; upstream) {
            client.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(client.getInputStream(), 16 * 1024);
            OutputStream out = new BufferedOutputStream(client.getOutputStream(), 64 * 1024);
            while (!closed) {
                Head request = Head.read(in);
                long acceptedAt = System.nanoTime();
                if (request == null) {
                    return;
                }
                if (faultsApply(request, held)) {
                    holdForever(in);
                    return;
                }
                if (request.hasToken("upgrade", "websocket")) {
                    // no client of nodegate's watches over WebSocket (fabric8's informers did, once): a test that
                    // starts one by mistake fails here, loudly
                    writePlain(out, 400, status(400, "BadRequest", "the test API server serves watches over HTTP "
                            + "streaming only, as nodegate's own client watches"));
                    return;
                }
                if ("GET".equals(request.method()) && request.isWatch()) {
                    if (!watch(request, acceptedAt, in, out, client)) {
                        return;
                    }
                    continue;
                }
                if (!forward(request, in, out, upstream)) {
                    return;
                }
            }
        } catch (IOException gone) {
            // the client or the mock went away: nothing to answer to
        } finally {
            connections.remove(client);
        }
    }

    // ---------------------------------------------------------------------------------------------- forwarding

    /** Passes one request and its answer through unchanged; false when the connection must close after it. */
    private boolean forward(Head request, InputStream in, OutputStream out, Upstream upstream) throws IOException {
        if (request.header("upgrade") != null) {
            // the JDK HttpClient offers an upgrade to h2c on every first plain request; kube-apiserver declines
            // it (HTTP/2 there needs TLS), and so does the front: the mock would switch protocols and the
            // answer would no longer be HTTP/1.1
            request = request.without("upgrade").without("http2-settings").without("connection");
        }
        if (request.hasToken("expect", "100-continue")) {
            // answer the interim response here, so the whole request can be read and sent in one piece
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            request = request.without("expect");
        }
        ByteArrayOutputStream whole = new ByteArrayOutputStream(1024);
        whole.write(request.raw());
        copyBody(request, in, whole);
        byte[] bytes = whole.toByteArray();
        Head answer = upstream.send(bytes);
        if (faultsApply(request, delayed)) {
            try {
                TimeUnit.NANOSECONDS.sleep(delayNanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while delaying an answer");
            }
        }
        while (answer.status() >= 100 && answer.status() < 200 && answer.status() != 101) {
            out.write(answer.raw());
            answer = Head.read(upstream.in());
            if (answer == null) {
                throw new EOFException("the mock closed the connection during an answer");
            }
        }
        out.write(answer.raw());
        boolean bodyless = "HEAD".equals(request.method()) || answer.status() == 204 || answer.status() == 304;
        boolean keepAlive = true;
        if (!bodyless) {
            if (answer.hasToken("transfer-encoding", "chunked")) {
                copyChunked(upstream.in(), out);
            } else if (answer.header("content-length") != null) {
                copyExactly(upstream.in(), out, Long.parseLong(answer.header("content-length").trim()));
            } else {
                upstream.in().transferTo(out);
                upstream.close();
                keepAlive = false;
            }
        }
        out.flush();
        if (answer.hasToken("connection", "close")) {
            upstream.close();
            keepAlive = false;
        }
        return keepAlive && !request.hasToken("connection", "close");
    }

    private static void copyBody(Head head, InputStream in, OutputStream to) throws IOException {
        if (head.hasToken("transfer-encoding", "chunked")) {
            copyChunked(in, to);
        } else if (head.header("content-length") != null) {
            copyExactly(in, to, Long.parseLong(head.header("content-length").trim()));
        }
    }

    private static void copyExactly(InputStream in, OutputStream out, long length) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long left = length;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException("body ended " + left + " bytes early");
            }
            out.write(buffer, 0, n);
            left -= n;
        }
    }

    /** Copies a chunked body as it is (sizes, chunks, trailers), stopping after its last chunk. */
    private static void copyChunked(InputStream in, OutputStream out) throws IOException {
        while (true) {
            String sizeLine = readLine(in);
            out.write((sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            if (size == 0) {
                String trailer;
                do {
                    trailer = readLine(in);
                    out.write((trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                } while (!trailer.isEmpty());
                return;
            }
            copyExactly(in, out, size + 2);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            line.append((char) c);
            if (line.length() > MAX_HEAD_BYTES) {
                throw new IOException("line too long");
            }
        }
        throw new EOFException("connection closed in the middle of a line");
    }

    // ------------------------------------------------------------------------------------------- HTTP watches

    /**
     * Serves one HTTP streaming watch by relaying a WebSocket watch to the mock. Returns true when the connection
     * can serve another request (the watch was refused with a plain answer), false when the stream used it up.
     */
    private boolean watch(Head request, long acceptedAt, InputStream in, OutputStream out, Socket client)
            throws IOException {
        copyBody(request, in, OutputStream.nullOutputStream());
        Long timeoutSeconds = request.timeoutSeconds();
        if (timeoutSeconds != null && timeoutSeconds == Long.MIN_VALUE) {
            writePlain(out, 400, status(400, "BadRequest", "timeoutSeconds is not a number"));
            return true;
        }
        WebSocket.Builder builder = webSockets.newWebSocketBuilder();
        for (String[] h : request.headers()) {
            String name = h[0].toLowerCase(Locale.ROOT);
            if (NOT_RELAYED.contains(name) || name.startsWith("sec-websocket-")) {
                continue;
            }
            try {
                builder.header(h[0], h[1]);
            } catch (IllegalArgumentException refusedByJdk) {
                // a header the JDK sets itself on a handshake: the mock gets its own value
            }
        }
        Relay relay = new Relay();
        WebSocket socket;
        try {
            socket = builder.buildAsync(URI.create("ws://" + upstreamHost + ":" + upstreamPort + request.target()),
                    relay).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) {
                HttpResponse<?> answer = refused.getResponse();
                String body = answer.body() instanceof String s && s.contains("\"Status\"") ? s
                        : status(answer.statusCode(), reasonOf(answer.statusCode()), "watch refused with HTTP "
                        + answer.statusCode());
                writePlain(out, answer.statusCode(), body);
                return true;
            }
            writePlain(out, 503, status(503, "ServiceUnavailable", "the test API server could not open the watch: "
                    + e.getCause()));
            return true;
        } catch (InterruptedException | TimeoutException e) {
            writePlain(out, 503, status(503, "ServiceUnavailable", "the test API server could not open the watch"));
            return false;
        }
        java.util.function.UnaryOperator<String> lineSent = watchLines == null ? null : watchLines.apply(request);
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\n"
                + "Date: " + now() + "\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        boolean setup = isSetup.test(request);
        if (endWatchesAtOnce && !setup) {
            // a server (or proxy) that ends every watch at once: 200, no event, the last chunk
            try {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } finally {
                socket.sendClose(WebSocket.NORMAL_CLOSURE, "watch ended").orTimeout(2, TimeUnit.SECONDS)
                        .whenComplete((ws, error) -> socket.abort());
                closeQuietly(client);
            }
            return false;
        }
        WatchStream stream = new WatchStream();
        if (!setup) {
            streams.add(stream);
            // a fault called while this stream was opening applies to it as well
            Long frozen = frozenBefore;
            Long dropped = droppedBefore;
            stream.frozen = frozen != null && acceptedAt - frozen < 0;
            stream.endNow = dropped != null && acceptedAt - dropped < 0;
        }
        // the stream owns the connection now: a read that ends means the client went away
        threads.execute(() -> {
            try {
                while (in.read() >= 0) {
                    // a client sends nothing on a watch; ignore whatever it does send
                }
            } catch (IOException ignored) {
                // reset or closed by us
            }
            relay.lines.add(CLIENT_GONE);
        });
        long deadline = timeoutSeconds == null ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(0, timeoutSeconds));
        try {
            while (!closed) {
                if (stream.frozen) {
                    // a dead host: nothing more is sent, not even the end; only the client leaving ends it here
                    Object line = relay.lines.poll(1, TimeUnit.SECONDS);
                    if (line == CLIENT_GONE) {
                        return false;
                    }
                    continue;
                }
                if (stream.endNow) {
                    break;
                }
                long wait = Math.min(TimeUnit.MILLISECONDS.toNanos(100),
                        deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime());
                if (wait <= 0) {
                    break;
                }
                Object line = relay.lines.poll(wait, TimeUnit.NANOSECONDS);
                if (line == END || line == CLIENT_GONE) {
                    break;
                }
                if (line != null && stream.frozen) {
                    continue;
                }
                if (line != null) {
                    String text = lineSent == null ? (String) line : lineSent.apply((String) line);
                    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                    out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(bytes);
                    out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                }
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException clientGone) {
            // nothing more to send to
        } finally {
            streams.remove(stream);
            // ending the WebSocket ends the mock's watch session, so openWatches() drops back
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "watch ended").orTimeout(2, TimeUnit.SECONDS)
                    .whenComplete((ws, error) -> socket.abort());
            closeQuietly(client);
        }
        return false;
    }

    /** One HTTP watch stream being relayed, and the faults played on it. */
    private static final class WatchStream {
        volatile boolean frozen;
        volatile boolean endNow;
    }

    /** Collects the mock's WebSocket frames; each complete text message is one watch event line. */
    private static final class Relay implements WebSocket.Listener {
        final LinkedBlockingQueue<Object> lines = new LinkedBlockingQueue<>();
        private final StringBuilder partial = new StringBuilder();

        @Override
        public void onOpen(WebSocket webSocket) {
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String event = partial.toString().strip();
                partial.setLength(0);
                if (event.indexOf('\n') >= 0) {
                    // one event per line: a pretty-printed event would split into several
                    event = event.replace("\r", "").replace("\n", "");
                }
                lines.add(event + "\n");
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            lines.add(END);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            lines.add(END);
        }
    }

    private static void writePlain(OutputStream out, int code, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + code + " " + reasonOf(code) + "\r\nContent-Type: application/json\r\nDate: " + now()
                + "\r\nContent-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(bytes);
        out.flush();
    }

    private static String status(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\""
                + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\",\"reason\":\"" + reason + "\",\"code\":"
                + code + "}";
    }

    private static String reasonOf(int code) {
        return switch (code) {
            case 400 -> "BadRequest";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 410 -> "Expired";
            case 429 -> "TooManyRequests";
            case 500 -> "InternalError";
            case 503 -> "ServiceUnavailable";
            default -> "Unknown";
        };
    }

    private static String now() {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        for (Socket s : List.copyOf(connections)) {
            closeQuietly(s);
        }
        threads.shutdownNow();
    }

    /** The connection to the mock that one client connection's plain requests go through (opened on demand). */
    private final class Upstream implements AutoCloseable {
        private Socket socket;
        private InputStream in;

        /** Sends a whole request and reads the answer's head; a kept-alive connection the mock dropped is redone. */
        Head send(byte[] request) throws IOException {
            boolean reused = socket != null;
            try {
                return sendOnce(request);
            } catch (IOException staleConnection) {
                close();
                if (!reused) {
                    throw staleConnection;
                }
                return sendOnce(request);
            }
        }

        private Head sendOnce(byte[] request) throws IOException {
            if (socket == null) {
                socket = new Socket(upstreamHost, upstreamPort);
                socket.setTcpNoDelay(true);
                in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            }
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            Head answer = Head.read(in);
            if (answer == null) {
                throw new EOFException("the mock closed the connection before answering");
            }
            return answer;
        }

        InputStream in() {
            return in;
        }

        @Override
        public void close() {
            if (socket != null) {
                closeQuietly(socket);
                socket = null;
                in = null;
            }
        }
    }

    /** The head of an HTTP/1.1 request or answer, with its raw bytes (forwarded unchanged). */
    record Head(String startLine, List<String[]> headers, byte[] raw) {

        /** Reads up to the blank line; null when the connection ends cleanly before a new head. */
        static Head read(InputStream in) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
            int lastFour = 0;
            int c;
            while (true) {
                try {
                    c = in.read();
                } catch (SocketException reset) {
                    if (bytes.size() == 0) {
                        return null;
                    }
                    throw reset;
                }
                if (c < 0) {
                    if (bytes.size() == 0) {
                        return null;
                    }
                    throw new EOFException("connection closed in the middle of an HTTP head");
                }
                bytes.write(c);
                lastFour = (lastFour << 8) | c;
                if (lastFour == CRLF_CRLF) {
                    break;
                }
                if (bytes.size() > MAX_HEAD_BYTES) {
                    throw new IOException("HTTP head too long");
                }
            }
            byte[] raw = bytes.toByteArray();
            String[] lines = new String(raw, StandardCharsets.ISO_8859_1).split("\r\n");
            List<String[]> headers = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    headers.add(new String[] {lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim()});
                }
            }
            return new Head(lines[0], headers, raw);
        }

        String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        boolean hasToken(String name, String token) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    for (String part : h[1].split(",")) {
                        if (part.trim().equalsIgnoreCase(token)) {
                            return true;
                        }
                    }
                }
            }
            return false;
        }

        Head without(String name) {
            StringBuilder head = new StringBuilder(startLine).append("\r\n");
            List<String[]> kept = new ArrayList<>();
            for (String[] h : headers) {
                if (!h[0].equalsIgnoreCase(name)) {
                    kept.add(h);
                    head.append(h[0]).append(": ").append(h[1]).append("\r\n");
                }
            }
            return new Head(startLine, kept, head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
        }

        String method() {
            int space = startLine.indexOf(' ');
            return space < 0 ? startLine : startLine.substring(0, space);
        }

        /** The request target, e.g. {@code /api/v1/nodes?watch=true}. */
        String target() {
            String[] parts = startLine.split(" ");
            return parts.length > 1 ? parts[1] : "/";
        }

        int status() {
            String[] parts = startLine.split(" ");
            return parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        }

        private String queryValue(String name) {
            String target = target();
            int q = target.indexOf('?');
            if (q < 0) {
                return null;
            }
            for (String pair : target.substring(q + 1).split("&")) {
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                if (key.equals(name)) {
                    return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                }
            }
            return null;
        }

        /** {@code watch=true} or {@code watch=1}, as kube-apiserver accepts (a Go strconv.ParseBool). */
        boolean isWatch() {
            String watch = queryValue("watch");
            return "true".equals(watch) || "1".equals(watch);
        }

        /** The timeoutSeconds parameter; null when absent, {@link Long#MIN_VALUE} when not a number. */
        Long timeoutSeconds() {
            String value = queryValue("timeoutSeconds");
            if (value == null || value.isEmpty()) {
                return null;
            }
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                return Long.MIN_VALUE;
            }
        }
    }
}
