package io.nodegate.source;

import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.NodegateException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one way the CLI reads an input file: only a regular file (after following links), its size checked against a
 * cap before a byte is read, and the whole read (stat, open, read) bounded by a deadline. A red-team pass fed
 * nodegate a FIFO as config.yaml or as a host report (it waited for a writer until the 30-minute overall deadline)
 * and /dev/zero (4.3 GB of memory before it gave up); both are refused here, naming the file and what it is.
 *
 * <p>Files under /proc and /sys are regular files that report size 0: they pass the size check and are read to
 * their end, still never past the cap. A read that hangs (a dead network mount) runs on a daemon thread, so the
 * command stops at the deadline with a message naming the file, and the stuck thread never keeps the JVM alive.
 *
 * <p>Refusals (not a regular file, too big, missing, no permission) are input errors (exit 2); a read that does not
 * finish by its deadline could not be collected (exit 3).
 */
public final class InputFiles {

    /** How much may be read, and for how long. */
    public record Limit(long maxBytes, Duration deadline) {
    }

    /** Host files (config.yaml, kubelet.conf, /proc and /sys files), kubeconfigs, PEM files, tokens. */
    public static final Limit SMALL = new Limit(16L << 20, Duration.ofSeconds(10));
    /** Records nodegate writes and reads back: host reports, baselines, evidence records. */
    public static final Limit RECORD = new Limit(64L << 20, Duration.ofSeconds(30));
    /** A kubectl dump parsed whole (the tombstone ledger's reader). */
    public static final Limit DUMP_WHOLE = new Limit(512L << 20, Duration.ofMinutes(5));
    /**
     * A kubectl dump streamed from disk (5,000 Nodes at 30 KB are 150 MB; Pods of a large cluster more), and
     * standard input piped from kubectl, which itself may take a while to list a large cluster.
     */
    public static final Limit DUMP_STREAM = new Limit(8L << 30, Duration.ofMinutes(10));

    private static final ExecutorService READERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "nodegate-file-read");
        t.setDaemon(true);
        return t;
    });
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nodegate-file-deadline");
        t.setDaemon(true);
        return t;
    });

    private InputFiles() {
    }

    /** The whole file; {@code what} names it in messages ("host report", "--baseline", "/etc/rancher/rke2/config.yaml"). */
    public static byte[] read(Path file, String what, Limit limit) {
        return withDeadline(what, file, limit.deadline(), () -> {
            try (FileChannel ch = openChecked(file, what, limit)) {
                return readCapped(java.nio.channels.Channels.newInputStream(ch), what, file, limit.maxBytes());
            }
        });
    }

    public static String readString(Path file, String what, Limit limit) {
        return new String(read(file, what, limit), StandardCharsets.UTF_8);
    }

    /**
     * Opens a regular file for streaming (a dump parsed as it is read). The stream stops at the cap, and a watchdog
     * closes it at the deadline: a read after that fails with a message naming the file. Close it when done.
     */
    public static InputStream open(Path file, String what, Limit limit) {
        FileChannel ch = withDeadline(what, file, limit.deadline(), () -> openChecked(file, what, limit));
        return new Bounded(ch, what, file, limit);
    }

    /**
     * Copies a stream (standard input) to {@code to}, at most {@code limit.maxBytes()} bytes and within its deadline;
     * {@code what} names the stream ("-f - (standard input)").
     */
    public static void copy(InputStream in, OutputStream to, String what, Limit limit) {
        withDeadline(what, null, limit.deadline(), () -> {
            byte[] buf = new byte[1 << 16];
            long total = 0;
            int n;
            while ((n = in.read(buf)) >= 0) {
                total += n;
                if (total > limit.maxBytes()) {
                    throw new InputException(what + ": more than " + size(limit.maxBytes()) + "; nodegate reads at "
                            + "most that much from it");
                }
                to.write(buf, 0, n);
            }
            return null;
        });
    }

    /** The file's kind in words, for a refusal ("a FIFO (named pipe)", "a character device"). */
    public static String kind(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            if (a.isDirectory()) {
                return "a directory";
            }
            if (a.isRegularFile()) {
                return "a regular file";
            }
            Object type = Files.getAttribute(file, "unix:mode");
            int mode = type instanceof Integer m ? m & 0170000 : 0;
            return switch (mode) {
                case 0010000 -> "a FIFO (named pipe)";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                default -> "not a regular file";
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "not a regular file";
        }
    }

    private static FileChannel openChecked(Path file, String what, Limit limit) throws IOException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new InputException(what + " " + file + ": no such file");
        } catch (AccessDeniedException e) {
            throw new InputException(what + " " + file + ": permission denied");
        }
        if (!attrs.isRegularFile()) {
            throw new InputException(what + " " + file + " is " + kind(file) + ", not a regular file: nodegate reads "
                    + "only regular files (a pipe or a device could block or never end)");
        }
        if (attrs.size() > limit.maxBytes()) {
            throw new InputException(what + " " + file + " is " + size(attrs.size()) + "; nodegate reads at most "
                    + size(limit.maxBytes()) + " from it");
        }
        try {
            return FileChannel.open(file, StandardOpenOption.READ);
        } catch (AccessDeniedException e) {
            throw new InputException(what + " " + file + ": permission denied");
        }
    }

    private static byte[] readCapped(InputStream in, String what, Path file, long max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1 << 16];
        long total = 0;
        int n;
        while ((n = in.read(buf)) >= 0) {
            total += n;
            if (total > max) {
                // a file that grew while read, or a /proc file that never ends
                throw new InputException(what + " " + file + ": more than " + size(max) + " read; nodegate reads at "
                        + "most that much from it");
            }
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    /** Runs a blocking read on a daemon thread and waits for it at most {@code deadline}. */
    private static <T> T withDeadline(String what, Path file, Duration deadline, Callable<T> read) {
        Future<T> f = READERS.submit(read);
        try {
            return f.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new CollectionException("reading " + what + (file == null ? "" : " " + file) + " did not finish "
                    + "within " + seconds(deadline) + " (a hung network mount, or a writer that never ends?)");
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new CollectionException("reading " + what + (file == null ? "" : " " + file) + " was interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof NodegateException ne) {
                throw ne;
            }
            throw new InputException("cannot read " + what + (file == null ? "" : " " + file) + ": "
                    + describe(cause), cause);
        }
    }

    static String describe(Throwable t) {
        if (t instanceof NoSuchFileException) {
            return "no such file";
        }
        if (t instanceof AccessDeniedException) {
            return "permission denied";
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    static String size(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20)).replace(".0 ", " ");
        }
        return bytes + " bytes";
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    /** A file stream that stops at the cap and is closed by a watchdog at the deadline. */
    private static final class Bounded extends InputStream {
        private final FileChannel ch;
        private final String what;
        private final Path file;
        private final Limit limit;
        private final AtomicBoolean expired = new AtomicBoolean();
        private final ScheduledFuture<?> watchdog;
        private long total;

        Bounded(FileChannel ch, String what, Path file, Limit limit) {
            this.ch = ch;
            this.what = what;
            this.file = file;
            this.limit = limit;
            this.watchdog = WATCHDOG.schedule(() -> {
                expired.set(true);
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // closing is all the watchdog can do
                }
            }, limit.deadline().toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            int n;
            try {
                n = ch.read(ByteBuffer.wrap(b, off, len));
            } catch (ClosedChannelException e) {
                if (expired.get()) {
                    throw new CollectionException("reading " + what + " " + file + " did not finish within "
                            + seconds(limit.deadline()));
                }
                throw e;
            }
            if (n > 0) {
                total += n;
                if (total > limit.maxBytes()) {
                    throw new InputException(what + " " + file + ": more than " + size(limit.maxBytes())
                            + " read; nodegate reads at most that much from it");
                }
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            watchdog.cancel(false);
            ch.close();
        }
    }
}
