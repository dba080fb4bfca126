package io.nodegate.source.host;

import io.nodegate.CollectionException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a command the host inspection asks (`systemctl show`) with a deadline for the whole run: start, output and
 * exit. The output is read on its own thread while the deadline runs: reading it to the end first (as this code once
 * did) waits for as long as the command keeps its output open, and a command that sleeps kept nodegate waiting and
 * outlived it. At the deadline, or when the command is done, the command and everything it started are killed:
 * the command runs in a session of its own ({@code setsid}, util-linux), so its process group takes even the
 * children that left their parent; where setsid is missing, its descendants are killed one by one.
 */
final class BoundedCommand {

    /** At most this much output is kept; a `systemctl show` of five properties is a few hundred bytes. */
    static final int MAX_OUTPUT = 1 << 20;

    private static final String SETSID = findExecutable("setsid");
    private static final String KILL = findExecutable("kill");

    private BoundedCommand() {
    }

    /** What the command printed (stdout and stderr together) and its exit code. */
    record Result(String output, int exitCode) {
    }

    /**
     * @param what how messages name the command ("`systemctl show ... rke2-agent`")
     * @throws CollectionException when it cannot start, prints too much, or does not finish by the deadline (then
     *                             it has been killed with its process group)
     * @throws IOException         when it cannot be started (the caller says what to do instead)
     */
    static Result run(List<String> command, Duration deadline, String what) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (SETSID != null) {
            cmd.add(SETSID);
        }
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        long started = System.nanoTime();
        boolean killed = false;
        try {
            p.getOutputStream().close();
            CompletableFuture<byte[]> output = CompletableFuture.supplyAsync(() -> readCapped(p.getInputStream()),
                    runnable -> {
                        Thread t = new Thread(runnable, "host-command-output");
                        t.setDaemon(true);
                        t.start();
                    });
            if (!p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new CollectionException(what + " did not finish within " + deadline.toSeconds() + "s; it was "
                        + "killed with its process group");
            }
            // the command is done; whatever it left running (holding the output open) goes with its group. The
            // command's own Process is not destroyed: that would close its output before it is read
            killLeftovers(p);
            killed = true;
            long left = Math.max(500, deadline.toMillis() - Duration.ofNanos(System.nanoTime() - started).toMillis());
            byte[] bytes;
            try {
                bytes = output.get(left, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new CollectionException(what + " exited, but its output did not end within " + deadline.toSeconds()
                        + "s");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof CollectionException ce) {
                    throw new CollectionException(what + ": " + ce.getMessage(), ce);
                }
                throw new CollectionException(what + ": reading its output failed: " + cause, cause);
            }
            return new Result(new String(bytes, StandardCharsets.UTF_8), p.exitValue());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectionException(what + " interrupted", e);
        } finally {
            // on every way out, nothing the command started outlives this call
            if (!killed) {
                killGroup(p);
            }
        }
    }

    private static byte[] readCapped(InputStream in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (out.size() + n > MAX_OUTPUT) {
                    throw new CollectionException("it printed more than " + MAX_OUTPUT + " bytes");
                }
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            // the stream is closed when the process is killed: what was read is what there is
        }
        return out.toByteArray();
    }

    /** Kills the command, its process group (when it has its own) and every descendant still known. */
    static void killGroup(Process p) {
        killLeftovers(p);
        p.destroyForcibly();
    }

    /** Kills what the command started: its process group and its descendants, but not the command's own handle. */
    private static void killLeftovers(Process p) {
        List<ProcessHandle> descendants = p.descendants().toList();
        if (SETSID != null && KILL != null) {
            try {
                Process k = new ProcessBuilder(KILL, "-KILL", "--", "-" + p.pid()).redirectErrorStream(true).start();
                k.getInputStream().readAllBytes();
                k.waitFor(2, TimeUnit.SECONDS);
            } catch (IOException e) {
                // the descendants below are still killed one by one
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    private static String findExecutable(String name) {
        for (String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
