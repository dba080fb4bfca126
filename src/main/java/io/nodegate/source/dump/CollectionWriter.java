package io.nodegate.source.dump;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.nodegate.source.kube.ApiResource;
import io.nodegate.model.SecretMeta;
import io.nodegate.InputException;
import io.nodegate.source.kube.Kinds;
import io.nodegate.source.kube.RawSnapshot;
import io.nodegate.source.kube.ReadKind;
import io.nodegate.source.json.KubeJson;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Writes a {@link RawSnapshot} as a `nodegate collect` directory: one kubectl-style List JSON file per thing
 * read, plus collected.json (time, context, server URL, server version, which optional APIs were proven
 * absent). {@link DumpSource} reads the directory back into an equal ClusterState.
 *
 * <p>Never written: credentials of any kind, Secret data, Secrets other than node-password ones. The
 * directory appears complete or not at all: files go to a temporary sibling that is renamed at the end.
 */
public final class CollectionWriter {

    public static final String COLLECTED = "collected.json";
    public static final String NODES = Kinds.NODES.dumpFile();
    public static final String NODE_LEASES = Kinds.NODE_LEASES.dumpFile();
    public static final String NODE_PASSWORD_SECRETS = Kinds.KUBE_SYSTEM_SECRETS.dumpFile();
    public static final String CSINODES = Kinds.CSINODES.dumpFile();
    public static final String ENDPOINT_SLICES = Kinds.API_ENDPOINT_SLICES.dumpFile();
    public static final String DAEMONSETS = Kinds.DAEMONSETS.dumpFile();
    public static final String CATTLE_JOBS = Kinds.CATTLE_JOBS.dumpFile();
    public static final String KUBE_SYSTEM_LEASES = Kinds.KUBE_SYSTEM_LEASES.dumpFile();
    public static final String PODS = Kinds.PODS.dumpFile();

    private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
    private static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private CollectionWriter() {
    }

    /** File name -> number of objects written (collected.json excluded). */
    public record Written(Path directory, Map<String, Integer> counts) {
    }

    /**
     * Writes the snapshot to {@code dir}, which must not exist or be empty.
     *
     * @throws InputException when dir exists and is not an empty directory, or cannot be written
     */
    public static Written write(RawSnapshot raw, Path dir) {
        return write(raw, dir, null);
    }

    /** The file the open hand-overs are saved in, when they could be read ({@link #write(RawSnapshot, Path, List)}). */
    public static final String HANDOVERS = "nodehandovers.json";
    /** The kind of the saved hand-overs' List: it says they were read, even when it is empty. */
    public static final String HANDOVER_LIST_KIND = "NodeHandoverList";
    public static final String HANDOVER_API_VERSION = "nodegate.io/v1alpha1";

    /**
     * As {@link #write(RawSnapshot, Path)}, with the NodeHandovers as the server sent them (null: not read, and no
     * file is written, so an offline audit says it cannot rule a hand-over out). They are saved as a
     * {@value #HANDOVER_LIST_KIND}, whose kind says "these were read" even when there are none; kubectl's "List" of
     * no items could not say that.
     */
    public static Written write(RawSnapshot raw, Path dir, List<Map<String, Object>> handovers) {
        Path target = dir.toAbsolutePath().normalize();
        if (Files.exists(target) && !isEmptyDirectory(target)) {
            throw new InputException("--dir " + dir + " exists and is not an empty directory; "
                    + "collect writes a fresh directory so two collections never mix");
        }
        Map<String, List<Map<String, Object>>> files = new LinkedHashMap<>();
        Map<String, ReadKind<?, ?>> kindOfFile = new LinkedHashMap<>();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            List<Map<String, Object>> items = raw.plainItems(kind);
            if (kind == Kinds.KUBE_SYSTEM_SECRETS && items != null) {
                // only node-password Secrets are evidence; other kube-system Secrets never reach the disk
                items = items.stream().filter(s -> SecretMeta.isNodePasswordName(String.valueOf(
                        s.get("metadata") instanceof Map<?, ?> m ? m.get("name") : null))).toList();
            }
            if (items != null) {
                files.put(kind.dumpFile(), items);
            } else if (kind.presence() == ReadKind.Presence.REQUIRED) {
                files.put(kind.dumpFile(), List.of());
            }
            kindOfFile.put(kind.dumpFile(), kind);
        }
        Path parent = target.getParent();
        Path temp = null;
        try {
            Files.createDirectories(parent);
            temp = Files.createTempDirectory(parent, "." + target.getFileName() + ".partial-");
            Map<String, Integer> counts = new LinkedHashMap<>();
            for (var e : files.entrySet()) {
                writeList(temp.resolve(e.getKey()), kindOfFile.get(e.getKey()), e.getValue());
                counts.put(e.getKey(), e.getValue().size());
            }
            if (handovers != null) {
                Map<String, Object> list = new LinkedHashMap<>();
                list.put("apiVersion", HANDOVER_API_VERSION);
                list.put("kind", HANDOVER_LIST_KIND);
                list.put("metadata", Map.of("resourceVersion", ""));
                List<Map<String, Object>> items = new ArrayList<>();
                for (Map<String, Object> h : handovers) {
                    Map<String, Object> item = new LinkedHashMap<>();
                    item.put("apiVersion", h.get("apiVersion") != null ? h.get("apiVersion") : HANDOVER_API_VERSION);
                    item.put("kind", "NodeHandover");
                    item.putAll(h);
                    items.add(item);
                }
                list.put("items", items);
                Files.writeString(temp.resolve(HANDOVERS), JSON.writeValueAsString(list) + "\n");
                counts.put(HANDOVERS, items.size());
            }
            Files.writeString(temp.resolve(COLLECTED), collectedJson(raw));
            if (Files.exists(target)) {
                Files.delete(target);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target);
            }
            temp = null;
            return new Written(target, counts);
        } catch (IOException e) {
            throw new InputException("cannot write collection to " + dir + ": " + e, e);
        } finally {
            if (temp != null) {
                deleteQuietly(temp);
            }
        }
    }

    /**
     * A kubectl-style List of the objects as the server sent them (plain JSON values), each with its kind and
     * apiVersion first as kubectl writes them, streamed to the file. A Secret is written without data, stringData
     * and last-applied-configuration even if a value slipped through (they never should: {@link KubeJson}).
     */
    static void writeList(Path file, ReadKind<?, ?> kind, List<Map<String, Object>> items) throws IOException {
        Map<String, Object> list = new LinkedHashMap<>();
        list.put("apiVersion", "v1");
        list.put("kind", "List");
        list.put("metadata", Map.of("resourceVersion", ""));
        List<Map<String, Object>> out = new ArrayList<>(items.size());
        for (Map<String, Object> item : items) {
            out.add(withKind(kind, item));
        }
        list.put("items", out);
        try (var stream = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            JSON.writeValue(stream, list);
            stream.write('\n');
        }
    }

    private static Map<String, Object> withKind(ReadKind<?, ?> kind, Map<String, Object> item) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("apiVersion", item.get("apiVersion") != null ? item.get("apiVersion")
                : ApiResource.of(kind.type()).apiVersion());
        out.put("kind", item.get("kind") != null ? item.get("kind") : kind.kind());
        out.putAll(item);
        if ("Secret".equals(out.get("kind"))) {
            out.remove("data");
            out.remove("stringData");
            if (out.get("metadata") instanceof Map<?, ?> meta && meta.get("annotations") instanceof Map<?, ?> a
                    && a.containsKey(LAST_APPLIED)) {
                Map<String, Object> metaCopy = new LinkedHashMap<>(asObject(meta));
                Map<Object, Object> annotations = new LinkedHashMap<>(a);
                annotations.remove(LAST_APPLIED);
                metaCopy.put("annotations", annotations);
                out.put("metadata", metaCopy);
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asObject(Map<?, ?> m) {
        return (Map<String, Object>) m;
    }

    static String collectedJson(RawSnapshot raw) {
        ObjectNode c = JSON.createObjectNode();
        c.put("kind", DumpSource.COLLECTION_KIND);
        c.put("collectedAt", raw.readsStarted().toString());
        // the clock an offline reader judges ages against, as the live read does: the end of the reads
        c.put("agesJudgedAt", raw.agesJudgedAt().toString());
        c.put("context", raw.context());
        c.put("server", raw.server());
        c.put("serverVersion", raw.serverVersion());
        ArrayNode absent = c.putArray("absent");
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            if (kind.absentNote() != null && raw.plainItems(kind) == null) {
                absent.add(kind.id());
            }
        }
        c.put("pods", raw.plainItems(Kinds.PODS) != null);
        return JSON.writeValueAsString(c) + "\n";
    }

    private static boolean isEmptyDirectory(Path p) {
        if (!Files.isDirectory(p)) {
            return false;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(p)) {
            return !s.iterator().hasNext();
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(walk.toList());
            all.sort(Comparator.reverseOrder());
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: a leftover .partial directory is harmless and visibly named
        }
    }
}
