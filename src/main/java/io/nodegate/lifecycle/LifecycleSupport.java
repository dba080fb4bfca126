package io.nodegate.lifecycle;

import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.InputException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;

/**
 * What the lifecycle commands share: how they read their inputs (baseline, times, durations) and where evidence
 * goes. The client, clock and sleeper are passed in ({@code io.nodegate.cli.Environment}), not held here.
 */
public final class LifecycleSupport {

    private LifecycleSupport() {
    }

    public static Baseline readBaseline(Path file) {
        if (file == null || !Files.isRegularFile(file)) {
            throw new InputException("--baseline " + file + ": no such file (save one with 'nodegate baseline save')");
        }
        Baseline b = EvidenceStore.readJson(file, Baseline.class);
        if (b.format() != Baseline.FORMAT || b.baselineTs() == null || b.control() == null) {
            throw new InputException("--baseline " + file + ": not a nodegate baseline (format " + b.format() + ")");
        }
        return b;
    }

    /** --evidence-dir, else the directory the baseline was recorded with, else the per-cluster default. */
    public static EvidenceStore store(Path evidenceDir, Baseline baseline, String server) {
        if (evidenceDir != null) {
            return new EvidenceStore(evidenceDir);
        }
        if (baseline != null && baseline.evidenceDir() != null) {
            return new EvidenceStore(Path.of(baseline.evidenceDir()));
        }
        return new EvidenceStore(EvidenceStore.defaultDir(server));
    }

    /** The baseline must come from the cluster we talk to: comparing another cluster's baseline proves nothing. */
    public static void checkSameCluster(Baseline baseline, String server) {
        if (baseline.server() != null && server != null
                && !EvidenceStore.clusterKey(baseline.server()).equals(EvidenceStore.clusterKey(server))) {
            throw new InputException("--baseline was saved from " + baseline.server() + " but this run talks to "
                    + server + ": use that cluster's baseline");
        }
    }

    /**
     * ISO-8601 with an offset (2026-10-19T15:09:00+09:00, …Z), or a local date-time (2026-10-19T15:09 or
     * "2026-10-19 15:09") read in --tz.
     */
    public static Instant parseTime(String text, String zone, String flag) {
        if (text == null) {
            return null;
        }
        String t = text.trim().replace(' ', 'T');
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException ignored) {
            // not offset-qualified: needs --tz
        }
        LocalDateTime local;
        try {
            local = LocalDateTime.parse(t);
        } catch (DateTimeParseException e) {
            throw new InputException(flag + " '" + text + "': expected ISO-8601 such as 2026-10-19T15:09:00+09:00, "
                    + "or 2026-10-19T15:09 with --tz Asia/Seoul");
        }
        if (zone == null) {
            throw new InputException(flag + " '" + text + "' has no UTC offset: add one (+09:00, Z) or give --tz ZONE");
        }
        try {
            return local.atZone(ZoneId.of(zone)).toInstant();
        } catch (java.time.DateTimeException e) {
            throw new InputException("--tz '" + zone + "': unknown time zone (e.g. Asia/Seoul, UTC, +09:00)");
        }
    }
}
