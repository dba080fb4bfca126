package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.Event;
import io.nodegate.detect.AuditSettings;
import io.nodegate.detect.Detector;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;
import io.nodegate.model.ClusterState;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.Await;
import io.nodegate.watch.publishing.FindingEvents;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A finding that names several nodes loses some of them: the watch posts NodegateResolved on the nodes that left it
 * and nothing on the nodes still in it. Found on a real control plane (WatchOnRealControlPlaneTest): four kubelets
 * of a batch stop came back one after the other, NG103's batch shrank from four nodes to two, and the watch said
 * "resolved" on all four (two of them still silent) and posted the batch again as new on the two.
 */
class WatchEventsPerNodeTest {

    @RegisterExtension
    final WatchFixture watch = new WatchFixture();

    /** Names the nodes it is given, as one finding (a group, as NG103 names a batch and NG110 the names of one host). */
    private static Detector naming(AtomicReference<List<String>> nodes) {
        return new Detector() {
            @Override
            public FindingCode code() {
                return FindingCode.NG110;
            }

            @Override
            public List<Finding> detect(ClusterState state, AuditSettings settings) {
                List<String> now = nodes.get();
                return now.isEmpty() ? List.of() : List.of(new Finding(FindingCode.NG110, Severity.WARNING, now,
                        now.size() + " Nodes share a systemUUID", Map.of(), "look"));
            }
        };
    }

    private List<String> events() {
        List<String> out = new ArrayList<>();
        for (Event e : watch.api().client().v1().events().inNamespace("default").list().getItems()) {
            out.add(e.getInvolvedObject().getName() + " " + e.getReason());
        }
        return out;
    }

    @Test
    void nodesThatLeaveAFindingAreResolvedAndTheOnesStillInItHearNothingNew() throws Exception {
        ApiTestServer api = watch.api();
        AtomicReference<List<String>> nodes = new AtomicReference<>(List.of("a", "b", "c", "d"));
        var settings = new WatchService.Settings(Duration.ofMillis(300), Duration.ofMillis(100), null, null, "one",
                Duration.ofSeconds(30), Duration.ofSeconds(20), Duration.ofSeconds(1), false, 100, 100, true,
                AuditSettings.DEFAULTS, List.of(naming(nodes)), Duration.ofSeconds(5), "live: test", null, api.url(),
                "test");
        WatchService service = watch.service(settings, Clock.systemUTC());
        service.start();
        Await.until("the batch posted on the four", Duration.ofSeconds(60), () -> events().size() == 4);
        assertThat(events()).containsExactlyInAnyOrder("a SameHostTwoNames", "b SameHostTwoNames", "c SameHostTwoNames",
                "d SameHostTwoNames");

        nodes.set(List.of("c", "d")); // a and b came back
        Await.until("a and b resolved", Duration.ofSeconds(60), () -> events().size() >= 6);
        long passes = service.metrics().render().lines().filter(l -> l.startsWith("nodegate_evaluations_total "))
                .mapToLong(l -> Long.parseLong(l.split(" ")[1])).sum();
        Await.until("three more passes", Duration.ofSeconds(60), () -> service.metrics().render().lines()
                .filter(l -> l.startsWith("nodegate_evaluations_total "))
                .mapToLong(l -> Long.parseLong(l.split(" ")[1])).sum() >= passes + 3);
        assertThat(events()).containsExactlyInAnyOrder("a SameHostTwoNames", "b SameHostTwoNames", "c SameHostTwoNames",
                "d SameHostTwoNames", "a " + FindingEvents.RESOLVED_REASON, "b " + FindingEvents.RESOLVED_REASON);

        nodes.set(List.of()); // c and d came back
        Await.until("c and d resolved", Duration.ofSeconds(60), () -> events().size() >= 8);
        assertThat(events()).containsExactlyInAnyOrder("a SameHostTwoNames", "b SameHostTwoNames", "c SameHostTwoNames",
                "d SameHostTwoNames", "a " + FindingEvents.RESOLVED_REASON, "b " + FindingEvents.RESOLVED_REASON,
                "c " + FindingEvents.RESOLVED_REASON, "d " + FindingEvents.RESOLVED_REASON);
    }
}
