package io.nodegate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hostile HTTP server on 127.0.0.1 for deadline tests, in two kinds:
 * <ul>
 *   <li>{@link #trickling()}: reads the request, sends a 200 status line and headers at once (a JSON body of a
 *   million bytes announced), then one byte of it a second: every single read succeeds well within any read
 *   timeout, the answer never completes;</li>
 *   <li>{@link #silent()}: accepts the connection, reads the request, never answers.</li>
 * </ul>
 * Each connection is served on a thread of its own until the client closes it or {@link #MAX_HOLD_SECONDS} pass,
 * so a client that never gives up cannot keep the test JVM busy for ever. The port is bound here, in the process
 * that serves it.
 */
public final class SlowServer implements AutoCloseable {

    /** The most one connection is held open, whatever the client does. */
    public static final int MAX_HOLD_SECONDS = 300;

    private final ServerSocket listener;
    private final boolean trickle;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger clientClosed = new AtomicInteger();
    private volatile boolean closed;

    private SlowServer(boolean trickle) {
        this.trickle = trickle;
        try {
            listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "slow-server-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Headers at once, then a byte a second. */
    public static SlowServer trickling() {
        return new SlowServer(true);
    }

    /** Accepts, reads the request, never answers. */
    public static SlowServer silent() {
        return new SlowServer(false);
    }

    public String url() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    /** Connections accepted so far. */
    public int accepted() {
        return accepted.get();
    }

    /** Connections the client closed (or reset) while this server still held them. */
    public int closedByClient() {
        return clientClosed.get();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = listener.accept();
                accepted.incrementAndGet();
                open.add(s);
                Thread t = new Thread(() -> serve(s), "slow-server-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            readHead(in);
            OutputStream out = s.getOutputStream();
            if (trickle) {
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n[")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
            s.setSoTimeout(1000);
            for (int i = 0; i < MAX_HOLD_SECONDS && !closed; i++) {
                try {
                    // waits a second; a read of -1 is the client closing the connection
                    if (in.read() == -1) {
                        clientClosed.incrementAndGet();
                        return;
                    }
                } catch (java.net.SocketTimeoutException quiet) {
                    // the client is still there and waiting
                }
                if (trickle) {
                    out.write(' ');
                    out.flush();
                }
            }
        } catch (IOException e) {
            if (!closed) {
                clientClosed.incrementAndGet(); // reset or broken pipe: the client went away
            }
        } finally {
            open.remove(s);
        }
    }

    /** Reads the request line and headers (the requests sent here carry small bodies, if any: left unread). */
    private static void readHead(InputStream in) throws IOException {
        int state = 0;
        int c;
        while ((c = in.read()) != -1) {
            state = switch (state) {
                case 0, 2 -> c == '\r' ? state + 1 : 0;
                case 1 -> c == '\n' ? 2 : 0;
                case 3 -> c == '\n' ? 4 : 0;
                default -> 0;
            };
            if (state == 4) {
                return;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
