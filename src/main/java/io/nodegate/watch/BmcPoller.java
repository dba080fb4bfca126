package io.nodegate.watch;

import io.nodegate.model.ClusterState;
import io.nodegate.model.BmcBinding;
import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.model.bmc.PowerVerdict;
import io.nodegate.source.bmc.BmcSource;
import io.nodegate.source.bmc.BmcTarget;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The watch's BMC poller: reads the BMCs (--bmc/--bmc-inventory) no more often than every {@code interval} (BMCs are
 * slow and serve few clients; power states do not change every 15 s), on its own thread, and hands each pass the
 * readings to judge (NG304, NG305). A BMC that fails keeps the reading of its last good poll, dated by its own readAt,
 * so a finding raised on it is neither resolved by the failure nor renewed by it (the detectors compare times with
 * readAt); {@code nodegate_bmc_up} says it failed. A BMC never read successfully is an unreadable reading: no finding
 * rests on it.
 */
public final class BmcPoller implements AutoCloseable {

    private final Supplier<List<BmcTarget>> targets;
    private final BmcSource source;
    private final Duration interval;
    private final Consumer<String> log;
    private final ScheduledExecutorService scheduler;
    private final Map<String, BmcReading> lastGood = new LinkedHashMap<>();
    private final Map<String, BmcReading> lastPoll = new LinkedHashMap<>();
    private volatile BmcReadings readings = BmcReadings.NOT_READ;
    private List<BmcTarget> current = List.of();

    /**
     * @param targets the BMCs and their credentials, asked again before each poll (a mounted Secret that was
     *                rotated is read again); a failure to read them keeps the previous list
     */
    public BmcPoller(Supplier<List<BmcTarget>> targets, BmcSource source, Duration interval, Consumer<String> log) {
        this.targets = targets;
        this.source = source;
        this.interval = interval;
        this.log = log;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nodegate-watch-bmc");
            t.setDaemon(true);
            return t;
        });
    }

    /** Polls now, then waits {@code interval} after each poll ends before the next. */
    public void start() {
        scheduler.scheduleWithFixedDelay(this::pollQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void pollQuietly() {
        try {
            poll();
        } catch (RuntimeException e) {
            log.accept("BMC poll failed: " + e.getMessage() + "; the last readings stay in use");
        }
    }

    /** One poll, now, in the caller's thread (--once, tests). */
    public synchronized BmcReadings poll() {
        try {
            current = targets.get();
        } catch (RuntimeException e) {
            log.accept("BMC targets could not be read again (" + e.getMessage() + "); polling the previous ones");
        }
        BmcReadings fresh = source.read(current);
        List<BmcReading> inUse = new ArrayList<>();
        lastPoll.clear();
        for (BmcReading r : fresh.bmcs()) {
            lastPoll.put(r.bmc(), r);
            BmcReading previous = lastGood.get(r.bmc());
            if (r.ok()) {
                lastGood.put(r.bmc(), r);
                inUse.add(r);
            } else if (previous != null) {
                log.accept("BMC " + r.bmc() + " unreadable: " + r.error() + "; its reading of " + previous.readAt()
                        + " stays in use");
                inUse.add(previous);
            } else {
                log.accept("BMC " + r.bmc() + " unreadable: " + r.error());
                inUse.add(r);
            }
        }
        lastGood.keySet().retainAll(lastPoll.keySet());
        readings = BmcReadings.of(inUse);
        return readings;
    }

    /** What a pass judges: the last readings ({@link BmcReadings#NOT_READ} until the first poll ends). */
    public BmcReadings readings() {
        return readings;
    }

    /** The state a pass judges, with the BMC readings in it. */
    public ClusterState feed(ClusterState state) {
        return state.withBmc(readings);
    }

    /**
     * The BMC series for /metrics: {@code nodegate_bmc_up{bmc}} from the last poll, the time of the reading in use, and
     * {@code nodegate_bmc_power_state{node,state}} from the state the last good pass judged (so they agree with its
     * findings). Empty before the first poll.
     */
    public synchronized String metrics(ClusterState judged) {
        StringBuilder out = new StringBuilder();
        if (lastPoll.isEmpty()) {
            return "";
        }
        header(out, "nodegate_bmc_up", "1 when the BMC answered the last poll over Redfish, 0 when it could not be read");
        lastPoll.forEach((bmc, r) -> out.append("nodegate_bmc_up{bmc=\"").append(WatchMetrics.escape(bmc))
                .append("\"} ").append(r.ok() ? 1 : 0).append('\n'));
        header(out, "nodegate_bmc_reading_timestamp_seconds",
                "When the BMC reading in use was taken, Unix seconds (older than the last poll while the BMC fails)");
        for (BmcReading r : readings.bmcs()) {
            if (r.ok()) {
                out.append("nodegate_bmc_reading_timestamp_seconds{bmc=\"").append(WatchMetrics.escape(r.bmc()))
                        .append("\"} ").append(r.readAt().getEpochSecond()).append('\n');
            }
        }
        if (judged == null || !judged.bmc().read()) {
            return out.toString();
        }
        header(out, "nodegate_bmc_power_state", "1 for the power verdict the Node's BMC gives (powered-off, running, "
                + "transitioning, not-found, unreadable), 0 for the others");
        BmcBinding binding = BmcBinding.bind(judged.nodes(), judged.bmc());
        for (Map.Entry<String, NodePower> e : binding.byNode().entrySet()) {
            for (PowerVerdict v : PowerVerdict.values()) {
                out.append("nodegate_bmc_power_state{node=\"").append(WatchMetrics.escape(e.getKey()))
                        .append("\",state=\"").append(v.label()).append("\"} ")
                        .append(e.getValue().verdict() == v ? 1 : 0).append('\n');
            }
        }
        return out.toString();
    }

    private static void header(StringBuilder out, String name, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" gauge\n");
    }

    /** When the last poll ended, for logs; null before the first. */
    public Instant lastPollAt() {
        return lastPoll.values().stream().map(BmcReading::readAt).max(Instant::compareTo).orElse(null);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
