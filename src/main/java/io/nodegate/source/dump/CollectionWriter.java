package io.nodegate.source.dump;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.nodegate.model.SecretMeta;
import io.nodegate.InputException;
import io.nodegate.source.Kinds;
import io.nodegate.source.RawSnapshot;
import io.nodegate.source.ReadKind;
import io.nodegate.source.SecretTrim;
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

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
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
        Path target = dir.toAbsolutePath().normalize();
        if (Files.exists(target) && !isEmptyDirectory(target)) {
            throw new InputException("--dir " + dir + " exists and is not an empty directory; "
                    + "collect writes a fresh directory so two collections never mix");
        }
        Map<String, List<? extends HasMetadata>> files = new LinkedHashMap<>();
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            List<? extends HasMetadata> items = raw.objects().get(kind);
            if (kind == Kinds.KUBE_SYSTEM_SECRETS && items != null) {
                // only node-password Secrets are evidence; other kube-system Secrets never reach the disk
                items = items.stream().map(s -> (Secret) s)
                        .filter(s -> s.getMetadata() != null && SecretMeta.isNodePasswordName(s.getMetadata().getName()))
                        .map(SecretTrim::metadataOnly).toList();
            }
            if (items != null) {
                files.put(kind.dumpFile(), items);
            } else if (kind.presence() == ReadKind.Presence.REQUIRED) {
                files.put(kind.dumpFile(), List.of());
            }
        }
        Path parent = target.getParent();
        Path temp = null;
        try {
            Files.createDirectories(parent);
            temp = Files.createTempDirectory(parent, "." + target.getFileName() + ".partial-");
            Map<String, Integer> counts = new LinkedHashMap<>();
            for (var e : files.entrySet()) {
                Files.writeString(temp.resolve(e.getKey()), listJson(e.getValue()));
                counts.put(e.getKey(), e.getValue().size());
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

    static String listJson(List<? extends HasMetadata> items) {
        ObjectNode list = JSON.createObjectNode();
        list.put("apiVersion", "v1");
        list.put("kind", "List");
        list.putObject("metadata").put("resourceVersion", "");
        ArrayNode array = list.putArray("items");
        for (HasMetadata item : items) {
            HasMetadata safe = item instanceof Secret s ? SecretTrim.metadataOnly(s) : item;
            ObjectNode tree = (ObjectNode) JSON.readTree(SERIALIZATION.asJson(safe));
            if (tree.get("kind") == null) {
                tree.put("kind", HasMetadata.getKind(item.getClass()));
            }
            if (tree.get("apiVersion") == null) {
                tree.put("apiVersion", HasMetadata.getApiVersion(item.getClass()));
            }
            array.add(tree);
        }
        return JSON.writeValueAsString(list) + "\n";
    }

    static String collectedJson(RawSnapshot raw) {
        ObjectNode c = JSON.createObjectNode();
        c.put("kind", DumpSource.COLLECTION_KIND);
        c.put("collectedAt", raw.now().toString());
        c.put("context", raw.context());
        c.put("server", raw.server());
        c.put("serverVersion", raw.serverVersion());
        ArrayNode absent = c.putArray("absent");
        for (ReadKind<?, ?> kind : Kinds.ALL) {
            if (kind.absentNote() != null && raw.objects().get(kind) == null) {
                absent.add(kind.id());
            }
        }
        c.put("pods", raw.pods() != null);
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
