package io.nodegate.lifecycle.evidence;

import io.nodegate.InputException;
import io.nodegate.source.InputFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The evidence directory: one per cluster, every baseline, gate run, removal backup and verification lands
 * here as a readable JSON file. Writes are durable (written, fsync'd, read back and compared) because the
 * removal step deletes only after its backup is provably on disk.
 */
public final class EvidenceStore {

    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

    /**
     * Where the bytes of an evidence file go. The real one writes them all; tests pass one that fills up after a
     * number of writes, to check what every step says when the disk is full at exactly that write.
     */
    @FunctionalInterface
    public interface Disk {
        void write(FileChannel channel, ByteBuffer bytes) throws IOException;

        Disk REAL = (channel, bytes) -> {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        };
    }

    private final Path dir;
    private final Disk disk;

    public EvidenceStore(Path dir) {
        this(dir, Disk.REAL);
    }

    public EvidenceStore(Path dir, Disk disk) {
        this.dir = dir.toAbsolutePath().normalize();
        this.disk = disk;
    }

    public Path dir() {
        return dir;
    }

    /**
     * ${XDG_STATE_HOME:-~/.local/state}/nodegate/&lt;cluster&gt;: per cluster so that two clusters' gate records
     * never meet. The cluster key is the API server URL made file-name safe.
     */
    public static Path defaultDir(String serverUrl) {
        String state = System.getenv("XDG_STATE_HOME");
        Path base = state == null || state.isBlank()
                ? Path.of(System.getProperty("user.home"), ".local", "state") : Path.of(state);
        return base.resolve("nodegate").resolve(clusterKey(serverUrl));
    }

    public static String clusterKey(String serverUrl) {
        if (serverUrl == null || serverUrl.isBlank()) {
            return "unknown-cluster";
        }
        String key = serverUrl.replaceFirst("^[a-z]+://", "").replaceAll("/+$", "")
                .replaceAll("[^A-Za-z0-9._-]", "_").toLowerCase(Locale.ROOT);
        return key.isEmpty() ? "unknown-cluster" : key;
    }

    public static String stamp(Instant t) {
        return STAMP.format(t);
    }

    /** Fails (InputException) unless the directory exists or can be created and a file can be written in it. */
    public void ensureWritable() {
        try {
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".write-probe-", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException e) {
            throw new InputException("evidence directory " + dir + " is not writable (" + e.getMessage()
                    + "); nothing was changed. Use --evidence-dir to choose another.", e);
        }
    }

    /** Writes a JSON record under the directory and returns its path. */
    public Path writeJson(String relativeName, Object value) {
        return writeText(relativeName, Json.write(value));
    }

    /**
     * Writes text durably: to a temporary file, fsync'd, atomically moved into place, the directory fsync'd,
     * then read back and compared. Any failure is an InputException and leaves no partial file behind.
     */
    public Path writeText(String relativeName, String text) {
        Path target = dir.resolve(relativeName).normalize();
        if (!target.startsWith(dir)) {
            throw new IllegalArgumentException("evidence name escapes the directory: " + relativeName);
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Path tmp = null;
        try {
            Files.createDirectories(target.getParent());
            tmp = Files.createTempFile(target.getParent(), ".tmp-", ".json");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                disk.write(ch, ByteBuffer.wrap(bytes));
                ch.force(true);
            }
            Files.move(tmp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            tmp = null;
            fsyncDirectory(target.getParent());
            byte[] back = Files.readAllBytes(target);
            if (!java.util.Arrays.equals(back, bytes)) {
                throw new IOException("read-back of " + target + " differs from what was written");
            }
            return target;
        } catch (IOException | SecurityException e) {
            throw new InputException("cannot write evidence file " + target + ": " + e.getMessage(), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // best effort: the temp file never held a record anyone reads
                }
            }
        }
    }

    private static void fsyncDirectory(Path d) {
        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open directories; the file itself was fsync'd.
        }
    }

    /** Files directly under the directory whose names start with the prefix and end in .json, sorted by name. */
    public List<Path> list(String prefix) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> out = new ArrayList<>(s.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(prefix) && n.endsWith(".json");
            }).sorted().toList());
            return out;
        } catch (IOException e) {
            throw new InputException("cannot list evidence directory " + dir + ": " + e.getMessage(), e);
        }
    }

    public static String sha256(Path file) {
        return sha256(InputFiles.read(file, "evidence file", InputFiles.RECORD));
    }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static <T> T readJson(Path file, Class<T> type) {
        String text = InputFiles.readString(file, "evidence file", InputFiles.RECORD);
        try {
            return Json.read(text, type);
        } catch (RuntimeException e) {
            throw new InputException(file + " is not a valid " + type.getSimpleName() + " file: " + e.getMessage(), e);
        }
    }
}
