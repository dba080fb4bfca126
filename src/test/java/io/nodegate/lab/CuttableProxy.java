package io.nodegate.lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on 127.0.0.1 in front of the lab's apiserver (TLS passes through untouched, so the client still checks
 * the apiserver's own certificate, issued for 127.0.0.1) that can cut the line: {@link #cut()} closes every open
 * connection and closes each new one at once, as a network partition between the watch and its apiserver would;
 * {@link #heal()} lets connections through again. The apiserver and everything else in the lab go on meanwhile.
 */
final class CuttableProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String host;
    private final int port;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean cut;

    CuttableProxy(String targetUrl) {
        URI uri = URI.create(targetUrl);
        this.host = uri.getHost();
        this.port = uri.getPort();
        try {
            listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::accept, "cuttable-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** https://127.0.0.1:PORT of the proxy. */
    String url() {
        return "https://127.0.0.1:" + listener.getLocalPort();
    }

    void cut() {
        cut = true;
        open.forEach(CuttableProxy::closeQuietly);
        open.clear();
    }

    void heal() {
        cut = false;
    }

    private void accept() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                continue;
            }
            if (cut) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket server = new Socket(host, port);
                open.add(client);
                open.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed (or the line was cut): close both
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "cuttable-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        cut();
    }
}
