package io.nodegate.watch;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One watch against the API test server, as the watch tests set it up: the server (its watches send a bookmark every
 * 300 ms, so a pass follows a change quickly), a client on it, a {@link WatchService} on that client writing its log
 * lines into {@link #log()}. Registered with {@code @RegisterExtension}, it closes all three after each test and, when
 * the test failed, prints the watch's log so the failure can be read.
 */
final class WatchFixture implements AfterEachCallback {

    private ApiTestServer api;
    private KubernetesClient client;
    private WatchService service;
    private final List<String> log = new CopyOnWriteArrayList<>();

    /** The API test server, started on first use: seed it before {@link #service} starts the watch. */
    ApiTestServer api() {
        if (api == null) {
            api = ApiTestServer.start().bookmarkEvery(Duration.ofMillis(300));
        }
        return api;
    }

    /** A watch on the server with {@code settings} and {@code clock}, not started yet (hooks go on first). */
    WatchService service(WatchService.Settings settings, Clock clock) {
        if (service != null) {
            throw new IllegalStateException("one watch per fixture");
        }
        client = api().newClient();
        service = new WatchService(settings, KubeConnection.wrapping(client, Duration.ofSeconds(10)), clock, log::add);
        return service;
    }

    /** The watch's log lines so far. */
    List<String> log() {
        return log;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (context.getExecutionException().isPresent()) {
            log.forEach(l -> System.err.println("WATCHLOG " + l));
        }
        if (service != null) {
            service.close();
        }
        if (client != null) {
            client.close();
        }
        if (api != null) {
            api.close();
        }
    }
}
