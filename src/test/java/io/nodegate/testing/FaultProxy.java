package io.nodegate.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small HTTP proxy in front of the test server that breaks one chosen API call: the Nth request (0-based)
 * answers 500, 403 or 429, has its connection reset, never answers, answers malformed JSON, or lies with a
 * well-formed 200 ({@link Fault#LYING_LIST}: an empty list without a resourceVersion, another kind, a page from
 * another snapshot). Once a call is
 * broken, repeats of the same "METHOD path?query" (client retries) stay broken, so a fault cannot be retried
 * away. A broken request is never forwarded, so the server's state shows whether the code wrote anything.
 */
public final class FaultProxy implements AutoCloseable {

    public enum Fault {
        HTTP_500, HTTP_403, HTTP_429, CONNECTION_RESET, TIMEOUT, MALFORMED_JSON,
        /** Not forwarded; answers 200 with an empty body. */
        EMPTY_200,
        /** Forwarded (the write lands on the server), then no answer until the client gives up. */
        LANDS_THEN_TIMEOUT,
        /** Forwarded (the write lands), then 200 with an empty body instead of the server's answer. */
        LANDS_EMPTY_200,
        /** Forwarded (the write lands), then 200 with some other object instead of the server's answer. */
        LANDS_FOREIGN_200,
        /** Forwarded, then 500 instead of the server's answer (a proxy that lost the upstream's reply). */
        LANDS_HTTP_500,
        /** Not forwarded; 404 NotFound (on a list: a proxy URL for a cluster that is gone). */
        HTTP_404,
        /** Not forwarded; 200 headers at once, then the body one byte every 200 ms, never finishing. */
        TRICKLE,
        /**
         * Not forwarded; 200 with kubectl's empty list, no resourceVersion, no continue:
         * {@code {"kind":"List","apiVersion":"v1","metadata":{},"items":[]}}. What a proxy answered in the field,
         * and what turned a gate's HOLD into PASS when it stood for the Lease LIST.
         */
        EMPTY_LIST_200,
        /**
         * Forwarded, then the answer's kind swapped for another list kind (PodList; NodeList for an answer that was
         * a PodList): a cache that served another URL's answer.
         */
        WRONG_KIND_200,
        /**
         * Forwarded, then the answer's metadata.resourceVersion replaced by another: a page from another snapshot
         * than the first page's. Only a continue page can show it; on a first page the lie cannot be seen.
         */
        OTHER_RESOURCE_VERSION_200;

        /** The lying answers to a LIST: a well-formed 200 that is not what kube-apiserver sends. */
        public static final List<Fault> LYING_LIST = List.of(EMPTY_LIST_200, WRONG_KIND_200,
                OTHER_RESOURCE_VERSION_200);

        /**
         * The lying answers that can be told from the truth on {@code call} ("GET /api/v1/nodes?limit=500..."): all of
         * them on a continue page, all but another resourceVersion on a first page.
         */
        public static List<Fault> lyingListFaults(String call) {
            return call.contains("continue=") ? LYING_LIST : List.of(EMPTY_LIST_200, WRONG_KIND_200);
        }

        /** The faults every call of the fault matrix gets: none of them lets the request reach the server. */
        public static final List<Fault> NOT_FORWARDED = List.of(HTTP_500, HTTP_403, HTTP_429, CONNECTION_RESET,
                TIMEOUT, MALFORMED_JSON, EMPTY_200);
        /** Faults for writes whose answer is lost or garbled after the server applied them. */
        public static final List<Fault> LANDED = List.of(LANDS_THEN_TIMEOUT, LANDS_EMPTY_200, LANDS_FOREIGN_200,
                LANDS_HTTP_500);

        public boolean forwards() {
            return LANDED.contains(this);
        }

        /** Forwarded, and the server's answer sent on with one field changed. */
        boolean rewrites() {
            return this == WRONG_KIND_200 || this == OTHER_RESOURCE_VERSION_200;
        }
    }

    private final ServerSocket server;
    private final String upstream;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fault-proxy");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger counter = new AtomicInteger();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private volatile Fault fault;
    private volatile int faultAt = -1;
    private volatile java.util.function.Predicate<String> faultWhere;
    private volatile String brokenCall;
    private volatile Duration hang = Duration.ofSeconds(3);

    public FaultProxy(String upstreamUrl) throws IOException {
        this.upstream = upstreamUrl.replaceAll("/+$", "");
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        pool.execute(this::acceptLoop);
    }

    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** Break request number {@code index} (0-based, counted from the last {@link #reset}) with {@code f}. */
    public synchronized void breakCall(int index, Fault f) {
        reset();
        this.fault = f;
        this.faultAt = index;
    }

    /**
     * Break the first request whose "METHOD path?query" {@code which} accepts (and its repeats) with {@code f}: for a
     * call whose place in the order is not fixed (audit lists Nodes on a thread of its own).
     */
    public synchronized void breakCall(java.util.function.Predicate<String> which, Fault f) {
        reset();
        this.fault = f;
        this.faultWhere = which;
    }

    /** Forward everything; clear the log and counter. */
    public synchronized void reset() {
        fault = null;
        faultAt = -1;
        faultWhere = null;
        brokenCall = null;
        counter.set(0);
        log.clear();
    }

    /** How long a TIMEOUT fault holds the connection before closing it (longer than the client's timeout). */
    public void hangFor(Duration d) {
        hang = d;
    }

    /** "METHOD path?query" of every request since the last reset, in order. */
    public List<String> log() {
        return List.copyOf(log);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                pool.execute(() -> handle(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void handle(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            String head = readHead(in);
            if (head == null) {
                return;
            }
            String[] lines = head.split("\r\n");
            String[] first = lines[0].split(" ");
            String method = first[0];
            String target = first[1];
            int length = 0;
            boolean chunked = false;
            String contentType = null;
            String accept = null;
            for (String l : lines) {
                String lower = l.toLowerCase(Locale.ROOT);
                if (lower.startsWith("accept:")) {
                    accept = l.substring(7).trim();
                } else if (lower.startsWith("content-length:")) {
                    length = Integer.parseInt(l.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                } else if (lower.startsWith("content-type:")) {
                    contentType = l.substring(13).trim();
                }
            }
            byte[] body = chunked ? readChunked(in) : in.readNBytes(length);
            String call = method + " " + target;
            int index = counter.getAndIncrement();
            log.add(call);
            Fault f = null;
            synchronized (this) {
                if (fault != null && (index == faultAt || call.equals(brokenCall)
                        || (brokenCall == null && faultWhere != null && faultWhere.test(call)))) {
                    brokenCall = call;
                    f = fault;
                }
            }
            OutputStream out = socket.getOutputStream();
            if (f != null && !f.forwards() && !f.rewrites()) {
                inject(f, socket, out);
                return;
            }
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(upstream + target)).timeout(Duration.ofSeconds(10))
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            if (contentType != null) {
                req.header("Content-Type", contentType);
            }
            // as the code under test asked: a Table of Secrets stays a Table (the CRUD mock's fallback is whole objects)
            if (accept != null) {
                req.header("Accept", accept);
            }
            HttpResponse<byte[]> resp = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
            if (f != null && f.rewrites()) {
                writeWithDate(out, resp.statusCode(), resp.headers().firstValue("Content-Type").orElse("application/json"),
                        resp.headers().firstValue("Date").orElse(null), rewrite(f, resp.body()));
                return;
            }
            if (f != null) {
                inject(f, socket, out);
                return;
            }
            // like any HTTP proxy in front of an API server, pass its Date header on (the baseline time comes from it)
            writeWithDate(out, resp.statusCode(), resp.headers().firstValue("Content-Type").orElse("application/json"),
                    resp.headers().firstValue("Date").orElse(null), resp.body());
        } catch (IOException e) {
            // the client went away; nothing to do
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void inject(Fault f, Socket socket, OutputStream out) throws IOException {
        switch (f) {
            case HTTP_500 -> write(out, 500, "application/json", status(500, "InternalError", "injected"));
            case HTTP_403 -> write(out, 403, "application/json", status(403, "Forbidden", "injected: forbidden"));
            case HTTP_429 -> write(out, 429, "application/json", status(429, "TooManyRequests", "injected: slow down"));
            case CONNECTION_RESET -> {
                socket.setSoLinger(true, 0);
                socket.close();
            }
            case TIMEOUT, LANDS_THEN_TIMEOUT -> {
                // Answer nothing until the client gives up and closes the connection (or `hang` passes): the
                // client sees its own request timeout, and no cell waits longer than that timeout
                socket.setSoTimeout((int) Math.max(1, hang.toMillis()));
                try {
                    while (socket.getInputStream().read() != -1) {
                        // discard: a well-behaved client sends nothing more on this request
                    }
                } catch (java.net.SocketTimeoutException | java.net.SocketException closed) {
                    // hang elapsed, or the client reset the connection
                }
            }
            case EMPTY_200, LANDS_EMPTY_200 -> write(out, 200, "application/json", new byte[0]);
            case HTTP_404 -> write(out, 404, "application/json", status(404, "NotFound", "the server could not find the requested resource"));
            case TRICKLE -> {
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                try {
                    for (int i = 0; i < 600 && !socket.isClosed(); i++) {
                        Thread.sleep(200);
                        out.write(' ');
                        out.flush();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            case LANDS_HTTP_500 -> write(out, 500, "application/json", status(500, "InternalError", "injected"));
            case LANDS_FOREIGN_200 -> write(out, 200, "application/json", ("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
                    + "\"metadata\":{\"name\":\"foreign\",\"namespace\":\"default\",\"uid\":\"uid-foreign\"}}")
                    .getBytes(StandardCharsets.UTF_8));
            case MALFORMED_JSON -> write(out, 200, "application/json",
                    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":".getBytes(StandardCharsets.UTF_8));
            case EMPTY_LIST_200 -> write(out, 200, "application/json",
                    "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[]}".getBytes(StandardCharsets.UTF_8));
            case WRONG_KIND_200, OTHER_RESOURCE_VERSION_200 -> throw new IllegalStateException(f + " rewrites the answer");
        }
    }

    private static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder()
            .build();

    /** The server's answer with the field {@code f} lies about changed; an answer that is no JSON object passes. */
    private static byte[] rewrite(Fault f, byte[] body) {
        tools.jackson.databind.JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (RuntimeException notJson) {
            return body;
        }
        if (!(root instanceof tools.jackson.databind.node.ObjectNode o)) {
            return body;
        }
        if (f == Fault.WRONG_KIND_200) {
            o.put("kind", "PodList".equals(o.path("kind").asString("")) ? "NodeList" : "PodList");
        } else if (o.path("metadata") instanceof tools.jackson.databind.node.ObjectNode meta) {
            String rv = meta.path("resourceVersion").asString("");
            String other;
            try {
                other = Long.toString(Long.parseLong(rv) + 1000);
            } catch (NumberFormatException e) {
                other = rv + "0";
            }
            meta.put("resourceVersion", other);
        }
        return o.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] status(int code, String reason, String message) {
        return ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\""
                + message + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static void writeWithDate(OutputStream out, int code, String type, String date, byte[] body)
            throws IOException {
        String head = "HTTP/1.1 " + code + " X\r\nContent-Type: " + type + "\r\nContent-Length: " + body.length
                + (date == null ? "" : "\r\nDate: " + date) + "\r\nConnection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    private static void write(OutputStream out, int code, String type, byte[] body) throws IOException {
        String head = "HTTP/1.1 " + code + " X\r\nContent-Type: " + type + "\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int state = 0;
        int b;
        while ((b = in.read()) != -1) {
            buf.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) ? state + 1 : (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
            if (state == 4) {
                return buf.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    private static byte[] readChunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = readLine(in).trim();
            int n = Integer.parseInt(size.split(";")[0], 16);
            if (n == 0) {
                readLine(in);
                return body.toByteArray();
            }
            body.write(in.readNBytes(n));
            readLine(in);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            if (b != '\r') {
                sb.append((char) b);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        pool.shutdownNow();
    }
}
