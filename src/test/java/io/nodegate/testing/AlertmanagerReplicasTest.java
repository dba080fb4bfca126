package io.nodegate.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The helper that starts real Alertmanager replicas for the hand-over tests. */
class AlertmanagerReplicasTest {

    /**
     * A port picked free and taken by someone else before Alertmanager binds it: the replica exits with "address
     * already in use", and the start is tried again on fresh ports instead of waiting out its deadline and failing.
     */
    @Test
    void aPortTakenBeforeAlertmanagerBindsItIsReplacedByAFreshOne(@TempDir Path tmp) throws Exception {
        AlertmanagerReplicas.require();
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            AtomicInteger handedOut = new AtomicInteger();
            // the first port handed out (the first replica's web port) is one this test holds
            IntSupplier ports = () -> handedOut.getAndIncrement() == 0 ? taken.getLocalPort() : free();
            try (AlertmanagerReplicas replicas = AlertmanagerReplicas.start(tmp, 2, ports)) {
                assertThat(handedOut.get()).as("a second set of ports was picked").isGreaterThan(4);
                assertThat(replicas.replicas()).hasSize(2);
                assertThat(replicas.urls()).noneMatch(u -> u.endsWith(":" + taken.getLocalPort()));
                for (AlertmanagerReplicas.Replica r : replicas.replicas()) {
                    assertThat(replicas.get(r, "/api/v2/status").path("cluster").path("peers").size()).isEqualTo(2);
                }
            }
        }
    }

    private static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
