package io.nodegate.source.host;

import io.nodegate.CollectionException;
import io.nodegate.NodegateException;
import io.nodegate.source.InputFiles;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A host's file tree read under a root directory with chroot semantics: every path, and every symbolic link met
 * on the way, is resolved inside the root. A mounted disk's {@code /etc/hostname -> /etc/hostname.real} or
 * {@code /etc/rancher -> /data/rancher} must name that disk's files, never the inspecting machine's; a red-team
 * tree with an absolute link to the inspecting machine's own files got them read into the report. An absolute
 * link restarts at the root, and ".." never climbs above it (as in a chroot, "/.." is "/"). With root "/" this is
 * ordinary path resolution.
 *
 * <p>Files are read through {@link InputFiles} (regular files only, capped, with a deadline); a refusal or a
 * failed read is a {@link CollectionException}: the host could not be read, and the report would otherwise claim
 * an absence it did not see.
 */
final class HostRoot {

    /** Linux's limit on links followed in one lookup (ELOOP beyond). */
    static final int MAX_LINKS = 40;

    private final Path root;

    HostRoot(Path root) {
        Path abs = root.toAbsolutePath().normalize();
        try {
            this.root = abs.toRealPath();
        } catch (IOException e) {
            throw new CollectionException("cannot resolve --root " + root + ": " + e.getMessage(), e);
        }
    }

    Path root() {
        return root;
    }

    /**
     * The path of {@code rel} ("etc/rancher/rke2/config.yaml") inside the root, every link on the way followed inside
     * the root; the result contains no symbolic link (its last part may not exist).
     */
    Path resolve(String rel) {
        return resolve(rel, true);
    }

    private Path resolve(String rel, boolean followLast) {
        Deque<String> todo = new ArrayDeque<>(parts(rel));
        List<String> done = new ArrayList<>();
        int links = 0;
        while (!todo.isEmpty()) {
            String part = todo.pollFirst();
            if (part.isEmpty() || ".".equals(part)) {
                continue;
            }
            if ("..".equals(part)) {
                if (!done.isEmpty()) {
                    done.remove(done.size() - 1);
                }
                continue;
            }
            Path candidate = under(done).resolve(part);
            if ((followLast || !todo.isEmpty()) && Files.isSymbolicLink(candidate)) {
                if (++links > MAX_LINKS) {
                    throw new CollectionException("cannot read /" + rel + " under " + root + ": more than " + MAX_LINKS
                            + " symbolic links on the way (a loop?)");
                }
                String target;
                try {
                    target = Files.readSymbolicLink(candidate).toString();
                } catch (IOException e) {
                    throw new CollectionException("cannot read the link " + candidate + ": " + e.getMessage(), e);
                }
                if (target.startsWith("/")) {
                    done.clear();
                }
                List<String> targetParts = parts(target);
                for (int i = targetParts.size() - 1; i >= 0; i--) {
                    todo.addFirst(targetParts.get(i));
                }
                continue;
            }
            done.add(part);
        }
        return under(done);
    }

    private Path under(List<String> parts) {
        Path p = root;
        for (String s : parts) {
            p = p.resolve(s);
        }
        return p;
    }

    private static List<String> parts(String path) {
        List<String> out = new ArrayList<>();
        for (String s : path.split("/")) {
            out.add(s);
        }
        return out;
    }

    /** Whether an entry of that name exists (a dangling link counts: it was put there). */
    boolean exists(String rel) {
        return Files.exists(resolve(rel, false), LinkOption.NOFOLLOW_LINKS) || Files.exists(resolve(rel));
    }

    boolean isDirectory(String rel) {
        return Files.isDirectory(resolve(rel), LinkOption.NOFOLLOW_LINKS);
    }

    /** The names in a directory (not followed into: callers resolve each name again under the root). */
    List<String> list(String rel) {
        Path dir = resolve(rel);
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            ds.forEach(p -> out.add(p.getFileName().toString()));
        } catch (AccessDeniedException e) {
            throw new CollectionException("cannot list " + dir + ": permission denied (run host inspect as root)");
        } catch (IOException e) {
            throw new CollectionException("cannot list " + dir + ": " + e);
        }
        return out;
    }

    /** The file's text (UTF-8), read as a regular file with a cap and a deadline. */
    String read(String rel) {
        Path p = resolve(rel);
        try {
            return InputFiles.readString(p, "host file", InputFiles.SMALL);
        } catch (NodegateException e) {
            String m = e.getMessage();
            throw new CollectionException(m.contains("permission denied") ? m + " (run host inspect as root)" : m, e);
        }
    }

    /** The file's text, or null when it does not exist (a process that exited while /proc was listed). */
    String readIfPresent(String rel) {
        if (!Files.exists(resolve(rel))) {
            return null;
        }
        try {
            return read(rel);
        } catch (CollectionException e) {
            if (!Files.exists(resolve(rel))) {
                return null;
            }
            throw e;
        }
    }
}
