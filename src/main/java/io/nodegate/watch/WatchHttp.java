package io.nodegate.watch;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.nodegate.render.AuditRenderer;
import io.nodegate.render.Structured;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The watch's HTTP endpoints: {@code /metrics} (Prometheus text), {@code /healthz} (the process answers),
 * {@code /readyz} (every informer synced and watching, and the last good pass recent), {@code /findings} (the
 * last good pass in the `audit -o json` shape). Plain HTTP, GET only, nothing secret served.
 */
public final class WatchHttp implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService pool;

    /**
     * @param maxPassAge how old the last good pass may be for /readyz to pass (a few intervals)
     */
    public WatchHttp(InetSocketAddress listen, WatchEngine engine, WatchMetrics metrics, Clock clock,
                     Duration maxPassAge) throws IOException {
        server = HttpServer.create(listen, 16);
        pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "nodegate-watch-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(pool);
        server.createContext("/metrics", ex -> answer(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
                metrics.render()));
        server.createContext("/healthz", ex -> answer(ex, 200, "text/plain; charset=utf-8", "ok\n"));
        server.createContext("/readyz", ex -> {
            List<String> problems = Readiness.problems(engine, clock, maxPassAge);
            if (problems.isEmpty()) {
                answer(ex, 200, "text/plain; charset=utf-8", "ok\n");
            } else {
                answer(ex, 503, "text/plain; charset=utf-8", "not ready:\n- " + String.join("\n- ", problems) + "\n");
            }
        });
        server.createContext("/findings", ex -> {
            WatchEngine.Pass good = engine.lastGood();
            if (good == null) {
                answer(ex, 503, "text/plain; charset=utf-8", "no evaluation pass has run on synced data yet\n");
            } else {
                answer(ex, 200, "application/json", Structured.json(AuditRenderer.tree(good.report())));
            }
        });
        server.start();
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    private static void answer(HttpExchange ex, int code, String type, String body) throws IOException {
        try (ex) {
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                byte[] msg = "only GET\n".getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                ex.sendResponseHeaders(405, msg.length);
                ex.getResponseBody().write(msg);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", type);
            if ("HEAD".equals(ex.getRequestMethod())) {
                ex.sendResponseHeaders(code, -1);
                return;
            }
            ex.sendResponseHeaders(code, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }

    /** Why the watch is not ready; empty when it is. */
    public static final class Readiness {
        private Readiness() {
        }

        public static List<String> problems(WatchEngine engine, Clock clock, Duration maxPassAge) {
            List<String> out = new java.util.ArrayList<>();
            engine.cache().unhealthy().forEach(k -> out.add("informer " + k));
            WatchEngine.Pass good = engine.lastGood();
            if (good == null) {
                out.add("no evaluation pass on synced data yet");
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
