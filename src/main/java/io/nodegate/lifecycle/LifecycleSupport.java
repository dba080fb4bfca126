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

    /** Fields a baseline may hold as null (no etcd source, no MetalLB, a kubeadm cluster); all must be present. */
    private static final java.util.Set<String> NULLABLE = java.util.Set.of("evidenceDir", "distribution",
            "clusterKubeletVersion", "etcdMembers", "metallb");

    /**
     * Reads a baseline strictly: every field 'baseline save' writes must be there (a missing field would skip a
     * check), and any unreadable value is named by file and field, without parser internals.
     */
    public static Baseline readBaseline(Path file) {
        if (file == null || !Files.exists(file)) {
            throw new InputException("--baseline " + file + ": no such file (save one with 'nodegate baseline save')");
        }
        tools.jackson.databind.JsonNode tree;
        try {
            tree = io.nodegate.lifecycle.evidence.Json.MAPPER.readTree(io.nodegate.source.InputFiles.readString(file,
                    "--baseline", io.nodegate.source.InputFiles.RECORD));
        } catch (tools.jackson.core.JacksonException e) {
            var at = e.getLocation();
            throw new InputException("--baseline " + file + ": not valid JSON" + (at == null || at.getLineNr() <= 0 ? ""
                    : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"), e);
        }
        if (tree == null || !tree.isObject() || tree.path("format").asInt(-1) != Baseline.FORMAT) {
            throw new InputException("--baseline " + file + ": not a nodegate baseline (format "
                    + (tree == null ? "none" : tree.path("format")) + ", expected " + Baseline.FORMAT + ")");
        }
        for (var component : Baseline.class.getRecordComponents()) {
            String name = component.getName();
            if (!tree.has(name)) {
                throw new InputException("--baseline " + file + ": field " + name + " is missing; every baseline "
                        + "'baseline save' writes has it (was the file edited?)");
            }
            if (tree.get(name).isNull() && !NULLABLE.contains(name)) {
                throw new InputException("--baseline " + file + ": field " + name + " is null; it must have a value");
            }
        }
        if (tree.get("server").asString("").isBlank()) {
            throw new InputException("--baseline " + file + ": field server is empty: which cluster it was saved from"
                    + " is unknown, so it cannot be compared with this one");
        }
        try {
            return io.nodegate.lifecycle.evidence.Json.MAPPER.treeToValue(tree, Baseline.class);
        } catch (tools.jackson.core.JacksonException e) {
            throw new InputException("--baseline " + file + ": field " + fieldPath(e)
                    + " has a value that is missing, of the wrong type or badly formatted", e);
        }
    }

    /** "targets[0].created" from a parser exception's path; "(top level)" when it has none. */
    private static String fieldPath(tools.jackson.core.JacksonException e) {
        StringBuilder out = new StringBuilder();
        for (var ref : e.getPath()) {
            if (ref.getPropertyName() != null) {
                out.append(out.length() == 0 ? "" : ".").append(ref.getPropertyName());
            } else if (ref.getIndex() >= 0) {
                out.append('[').append(ref.getIndex()).append(']');
            }
        }
        return out.length() == 0 ? "(top level)" : out.toString();
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
        if (server != null
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
