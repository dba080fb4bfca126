package io.nodegate.lifecycle.baseline;

import io.nodegate.InputException;
import io.nodegate.lifecycle.evidence.EvidenceStore;
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.source.InputFiles;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A baseline file as the lifecycle commands take it (--baseline): read strictly, held to the cluster it was saved
 * from, and where the evidence of a run that uses it goes.
 */
public final class BaselineFile {

    private BaselineFile() {
    }

    /** Fields a baseline may hold as null (no etcd source, no MetalLB, a kubeadm cluster); all must be present. */
    private static final java.util.Set<String> NULLABLE = java.util.Set.of("evidenceDir", "distribution",
            "clusterKubeletVersion", "etcdMembers", "metallb");

    /**
     * Reads a baseline strictly: every field 'baseline save' writes must be there (a missing field would skip a
     * check), and any unreadable value is named by file and field, without parser internals.
     */
    public static Baseline read(Path file) {
        if (file == null || !Files.exists(file)) {
            throw new InputException("--baseline " + file + ": no such file (save one with 'nodegate baseline save')");
        }
        tools.jackson.databind.JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(InputFiles.readString(file,
                    "--baseline", InputFiles.RECORD));
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
            return Json.MAPPER.treeToValue(tree, Baseline.class);
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

    /** The baseline must come from the cluster we talk to: comparing another cluster's baseline proves nothing. */
    public static void checkSameCluster(Baseline baseline, String server) {
        if (server != null
                && !EvidenceStore.clusterKey(baseline.server()).equals(EvidenceStore.clusterKey(server))) {
            throw new InputException("--baseline was saved from " + baseline.server() + " but this run talks to "
                    + server + ": use that cluster's baseline");
        }
    }

    /** --evidence-dir, else the directory the baseline was recorded with, else the per-cluster default. */
    public static EvidenceStore evidenceStore(Path evidenceDir, Baseline baseline, String server) {
        if (evidenceDir != null) {
            return new EvidenceStore(evidenceDir);
        }
        if (baseline != null && baseline.evidenceDir() != null) {
            return new EvidenceStore(Path.of(baseline.evidenceDir()));
        }
        return new EvidenceStore(EvidenceStore.defaultDir(server));
    }
}
