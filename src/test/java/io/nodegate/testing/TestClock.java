package io.nodegate.testing;

import io.nodegate.lifecycle.remove.NodeRemover;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A clock that moves only when the code under test sleeps, and runs what the test scheduled (the garbage
 * collector and PodGC deleting dependants) when their virtual time comes. No real waiting.
 */
public final class TestClock extends Clock implements NodeRemover.Sleeper {
    private Instant now;
    private final List<Scheduled> scheduled = new ArrayList<>();

    private record Scheduled(Instant at, Runnable action) {
    }

    public TestClock(Instant start) {
        this.now = start;
    }

    public synchronized void set(Instant t) {
        now = t;
    }

    public synchronized void advance(Duration d) {
        now = now.plus(d);
        List<Scheduled> due = scheduled.stream().filter(s -> !s.at().isAfter(now))
                .sorted(Comparator.comparing(Scheduled::at)).toList();
        scheduled.removeAll(due);
        due.forEach(s -> s.action().run());
    }

    /** Runs the action once the clock has moved {@code after} past now. */
    public synchronized void schedule(Duration after, Runnable action) {
        scheduled.add(new Scheduled(now.plus(after), action));
    }

    @Override
    public void sleep(Duration d) {
        advance(d);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public synchronized Instant instant() {
        return now;
    }
}
