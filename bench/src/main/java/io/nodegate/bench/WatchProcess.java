package io.nodegate.bench;

import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.registry.Detectors;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.watch.WatchService;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * nodegate watch's service as `nodegate watch` runs it (same connection through KubeConnection.openForModel, same
 * informers: LIST, then HTTP streaming WATCH, as in a cluster; same passes and HTTP), against the benchmark server.
 * One difference, forced by the benchmark server and not on the measured path: no leader election and no Event
 * posting (the server is read-only).
 */
final class WatchProcess {

    private WatchProcess() {
    }

    /**
     * @param kubeconfigFile null: a kubeconfig for the benchmark server at {@code server}; else this one (the lab's real
     *                   kube-apiserver, bench/lab.sh), whose current context's server is the one watched
     */
    static void run(String server, String kubeconfigFile, int listenPort, String interval, Duration debounce)
            throws Exception {
        if ((server == null) == (kubeconfigFile == null)) {
            System.err.println("watch: give --server URL (the benchmark server) or --kubeconfig FILE, one of the two");
            System.exit(2);
        }
        Path kubeconfig;
        if (kubeconfigFile != null) {
            kubeconfig = Path.of(kubeconfigFile);
            server = "the current context of " + kubeconfigFile;
        } else {
            kubeconfig = Files.createTempFile("nodegate-bench-watch", ".kubeconfig");
            Files.writeString(kubeconfig, """
                    apiVersion: v1
                    kind: Config
                    clusters: [{name: bench, cluster: {server: %s}}]
                    users: [{name: bench, user: {token: bench-not-a-secret}}]
                    contexts: [{name: bench, context: {cluster: bench, user: bench}}]
                    current-context: bench
                    """.formatted(server));
        }
        KubeConnection connection = KubeConnection.openForModel(kubeconfig, null, Duration.ofSeconds(30));
        Duration every = Duration.ofSeconds(Long.parseLong(interval.replaceAll("s$", "")));
        var settings = new WatchService.Settings(every, debounce,
                new InetSocketAddress("127.0.0.1", listenPort), null, "bench", Duration.ofSeconds(15),
                Duration.ofSeconds(10), Duration.ofSeconds(2), true, 1, 25, false, AuditSettings.DEFAULTS,
                Detectors.all(), Duration.ofSeconds(30), "live: bench (" + server + ")", "bench", server, "bench");
        WatchService watch = new WatchService(settings, connection, java.time.Clock.systemUTC(),
                line -> System.err.println(Instant.now().truncatedTo(ChronoUnit.MILLIS) + " watch: " + line));
        watch.start();
        System.err.println("watch serving on 127.0.0.1:" + watch.httpPort());
        Thread.currentThread().join();
    }
}
