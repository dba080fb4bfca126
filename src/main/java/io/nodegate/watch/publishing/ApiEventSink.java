package io.nodegate.watch.publishing;

import io.nodegate.watch.leadership.LeadershipLost;
import io.nodegate.watch.leadership.LeaderGuard;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.detect.Finding;
import io.nodegate.source.kube.ApiCalls;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;

/**
 * Posts core/v1 Events about Nodes, as the kubelet does: in namespace {@code default}, involvedObject the Node
 * (kind, name, and uid when the Node still exists), source component {@code nodegate-watch}. `kubectl describe
 * node X` then shows them next to the kubelet's own.
 *
 * <p>Legacy core/v1 shape (firstTimestamp, lastTimestamp, count; no eventTime), as client-go's EventRecorder
 * writes it, which every apiserver version accepts.
 *
 * <p>Rate limit: a token bucket ({@code burst} Events, refilled at {@code perSecond}); an Event over the limit is
 * dropped and said in the log, never queued for later (a late Event about a state that moved on misleads). A
 * failed POST is logged and not retried: the finding is still on /metrics and /findings.
 *
 * <p>Before each POST the {@link LeaderGuard} reads the leader Lease: a replica that lost it posts nothing more.
 */
public final class ApiEventSink implements EventSink {

    public static final String NAMESPACE = "default";
    public static final String COMPONENT = "nodegate-watch";

    private final KubernetesClient client;
    private final LeaderGuard guard;
    private final ApiCalls api;
    private final Clock clock;
    private final String instance;
    private final Consumer<String> log;
    private final double perSecond;
    private final double burst;
    private double tokens;
    private Instant refilledAt;
    private long dropped;

    public ApiEventSink(KubernetesClient client, Clock clock, String instance, double perSecond, int burst,
                        Consumer<String> log) {
        this(client, clock, instance, perSecond, burst, LeaderGuard.NONE, log);
    }

    /** @param guard asked before every POST: this replica must still hold the leader Lease */
    public ApiEventSink(KubernetesClient client, Clock clock, String instance, double perSecond, int burst,
                        LeaderGuard guard, Consumer<String> log) {
        this.guard = guard;
        this.client = client;
        this.api = ApiCalls.of(client);
        this.clock = clock;
        this.instance = instance;
        this.perSecond = perSecond;
        this.burst = burst;
        this.tokens = burst;
        this.refilledAt = clock.instant();
        this.log = log;
    }

    @Override
    public void appeared(Finding finding) {
        for (String node : finding.nodes()) {
            post(node, FindingEvents.reason(finding), FindingEvents.type(finding), FindingEvents.message(finding));
        }
    }

    @Override
    public void resolved(Finding finding) {
        for (String node : finding.nodes()) {
            post(node, FindingEvents.RESOLVED_REASON, "Normal", FindingEvents.resolvedMessage(finding));
        }
    }

    /** Events dropped by the rate limit so far. */
    public synchronized long dropped() {
        return dropped;
    }

    private synchronized boolean take() {
        Instant now = clock.instant();
        double elapsed = Math.max(0, Duration.between(refilledAt, now).toMillis() / 1000.0);
        tokens = Math.min(burst, tokens + elapsed * perSecond);
        refilledAt = now;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        dropped++;
        return false;
    }

    /** @throws LeadershipLost when this replica no longer holds the leader Lease: nothing is posted */
    private void post(String node, String reason, String type, String message) {
        if (!take()) {
            log.accept("event rate limit: dropped " + reason + " on Node " + node);
            return;
        }
        String uid = null;
        try {
            // through ApiCalls: one deadline on the whole answer (this runs on the passes' thread)
            var n = api.call("GET node " + node, () -> client.nodes().withName(node).get());
            uid = n == null || n.getMetadata() == null ? null : n.getMetadata().getUid();
        } catch (RuntimeException e) {
            // the uid only helps `kubectl describe node` match; the Event is still worth posting without it
        }
        send("v1", "Node", node, uid, reason, type, message);
    }

    /**
     * An Event about another object than a Node (a NodeHandover: `kubectl describe nodehandover` shows it), in the
     * same namespace, shape and rate limit as the Node Events.
     */
    public void about(String apiVersion, String kind, String name, String uid, String reason, String type,
                      String message) {
        if (!take()) {
            log.accept("event rate limit: dropped " + reason + " on " + kind + " " + name);
            return;
        }
        send(apiVersion, kind, name, uid, reason, type, message);
    }

    /** @throws LeadershipLost when this replica no longer holds the leader Lease: nothing is posted */
    private void send(String apiVersion, String kind, String name, String uid, String reason, String type,
                      String message) {
        guard.require();
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        Event event = new EventBuilder()
                .withNewMetadata().withGenerateName(name + ".nodegate-").withNamespace(NAMESPACE).endMetadata()
                .withNewInvolvedObject().withApiVersion(apiVersion).withKind(kind).withName(name).withUid(uid)
                .endInvolvedObject()
                .withReason(reason).withType(type).withMessage(message)
                .withNewSource().withComponent(COMPONENT).endSource()
                .withReportingComponent(COMPONENT).withReportingInstance(instance)
                .withFirstTimestamp(DateTimeFormatter.ISO_INSTANT.format(now))
                .withLastTimestamp(DateTimeFormatter.ISO_INSTANT.format(now))
                .withCount(1)
                .build();
        try {
            api.call("POST events in " + NAMESPACE, () -> client.v1().events().inNamespace(NAMESPACE)
                    .resource(event).create());
        } catch (RuntimeException e) {
            log.accept("could not post Event " + reason + " on " + kind + " " + name + ": " + e.getMessage());
        }
    }
}
