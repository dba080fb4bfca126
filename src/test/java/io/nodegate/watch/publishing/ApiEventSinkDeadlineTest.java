package io.nodegate.watch.publishing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;
import io.nodegate.testing.SeedCluster;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.FaultProxy;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch's Event sink reads the Node's uid before posting, on the passes' thread. An API server (or a proxy) that
 * sends that answer's headers and then trickles the body, or never answers, must not hold the pass: the read ends at
 * the client's request timeout (plus what a loaded machine adds) and the Event is posted without the uid.
 */
class ApiEventSinkDeadlineTest {

    @ParameterizedTest
    @EnumSource(value = FaultProxy.Fault.class, names = {"TRICKLE", "TIMEOUT"})
    void aSlowNodeReadDoesNotHoldThePass(FaultProxy.Fault fault) throws Exception {
        try (ApiTestServer api = ApiTestServer.start()) {
            api.create(SeedCluster.node("w1", "192.0.2.1", "True", false, Map.of(), "boot-1", "uuid-w1", 0,
                    Instant.now(), null));
            try (FaultProxy proxy = new FaultProxy(api.url());
                 KubernetesClient client = SeedCluster.client(proxy.url(), 1000)) {
                proxy.hangFor(Duration.ofSeconds(60));
                proxy.breakCall(r -> r.startsWith("GET /api/v1/nodes/w1"), fault);
                List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
                ApiEventSink sink = new ApiEventSink(client, Clock.systemUTC(), "nodegate-watch-0", 10, 10, log::add);
                long start = System.nanoTime();
                sink.appeared(new Finding("NG101", "NodeNotReady", Severity.WARNING, List.of("w1"), "w1 is NotReady",
                        Map.of(), null));
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as(fault + " " + log)
                        .isLessThan(Duration.ofSeconds(1 + 10));
                assertThat(proxy.log()).anyMatch(r -> r.startsWith("POST /api/v1/namespaces/default/events"));
            }
        }
    }
}
