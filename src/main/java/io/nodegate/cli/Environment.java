package io.nodegate.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.source.kube.LastServerAsked;
import io.nodegate.lifecycle.remove.NodeRemover;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * What commands take from the world outside their options: how to get an API client, the clock, how long to wait
 * between polls and how to wait. Passed to each command when the command line is built
 * ({@link Nodegate#newCommandLine(Environment)}), never through static fields, so tests point one command line at
 * their API server and virtual clock without touching any other.
 *
 * @param connect      opens a connection for the --kubeconfig/--context the user gave (reads go over its lean
 *                     HTTP layer; its fabric8 client is built only by the paths that write or watch)
 * @param clock        the time commands record and compare against
 * @param pollInterval how long remove waits between looks at the deletion cascade
 * @param sleeper      how commands wait (tests pass a clock that advances instead of sleeping)
 * @param lastAsked    the API server this invocation asked last, for its overall deadline's message: every
 *                     connection the command opens records into it (one per environment, so two commands in one
 *                     JVM never see each other's server)
 */
public record Environment(Function<LiveOptions, KubeConnection> connect, Clock clock, Duration pollInterval,
                          NodeRemover.Sleeper sleeper, LastServerAsked lastAsked) {

    /** kubectl's connection rules (--kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster service account). */
    private static final Function<LiveOptions, KubeConnection> KUBECTL_RULES = LiveOptions::connect;

    /**
     * The real world: kubectl's connection rules, the system clock, real sleeping; a new one per command invocation
     * (it carries that invocation's {@link #lastAsked}).
     */
    public static Environment system() {
        return new Environment(KUBECTL_RULES, Clock.systemUTC(), Duration.ofSeconds(2), d -> Thread.sleep(d.toMillis()),
                new LastServerAsked());
    }

    public Environment {
        Objects.requireNonNull(connect, "connect");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(lastAsked, "lastAsked");
    }

    /**
     * A client for reading into the model only (it skips managedFields, images and Secret values while parsing):
     * under kubectl's rules that is {@link LiveOptions#connectForModel()}, otherwise whatever {@link #connect} gives.
     */
    public KubeConnection connectForModel(LiveOptions options) {
        return connect == KUBECTL_RULES ? options.connectForModel() : connect.apply(options);
    }

    /** This environment talking to one given client whatever the connection flags (tests). */
    public Environment withClient(KubernetesClient client) {
        return new Environment(options -> KubeConnection.wrapping(client, null, lastAsked), clock, pollInterval,
                sleeper, lastAsked);
    }

    public Environment withClock(Clock newClock) {
        return new Environment(connect, newClock, pollInterval, sleeper, lastAsked);
    }

    public Environment withPollInterval(Duration interval) {
        return new Environment(connect, clock, interval, sleeper, lastAsked);
    }

    public Environment withSleeper(NodeRemover.Sleeper newSleeper) {
        return new Environment(connect, clock, pollInterval, newSleeper, lastAsked);
    }
}
