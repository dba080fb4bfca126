package io.nodegate.testing;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy on 127.0.0.1 in front of a test server that holds back each answer by a delay: the first bytes
 * of the server's answer after the client has sent something wait the delay, so every request/response exchange
 * on a keep-alive connection is slowed at least once, however its bytes are split. The delay is a floor for
 * each call whatever the load on the machine; HTTP/2 control frames (the JDK client upgrades to h2c after its
 * first request) can add more, never less. Bytes are not parsed, so the delay cannot target one method.
 *
 * <p>With an {@link SSLContext} the proxy terminates TLS with that context's certificate (a fake apiserver with
 * a given certificate) and speaks plain HTTP to the target.
 */
public final class DelayProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private volatile long delayMillis;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    private DelayProxy(ServerSocket listener, String targetHost, int targetPort, long delayMillis) {
        this.listener = listener;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.delayMillis = delayMillis;
        acceptor = new Thread(this::acceptLoop, "delay-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A plain proxy to {@code target} (e.g. {@code http://localhost:41234}) adding {@code delayMillis} per answer. */
    public static DelayProxy start(String targetUrl, long delayMillis) {
        return start(targetUrl, delayMillis, null);
    }

    /** Like {@link #start(String, long)}, terminating TLS with {@code tls} when it is not null. */
    public static DelayProxy start(String targetUrl, long delayMillis, SSLContext tls) {
        java.net.URI uri = java.net.URI.create(targetUrl);
        try {
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            ServerSocket listener = tls == null ? new ServerSocket(0, 50, loopback)
                    : tls.getServerSocketFactory().createServerSocket(0, 50, loopback);
            return new DelayProxy(listener, uri.getHost(), uri.getPort(), delayMillis);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A TLS front that also demands a client certificate signed by a CA the {@code tls} context trusts, as
     * kube-apiserver does with --client-ca-file: a client without one fails the handshake.
     */
    public static DelayProxy startMutualTls(String targetUrl, SSLContext tls) {
        DelayProxy proxy = start(targetUrl, 0, tls);
        ((javax.net.ssl.SSLServerSocket) proxy.listener).setNeedClientAuth(true);
        return proxy;
    }

    /** Changes the delay for answers from now on. */
    public DelayProxy delay(long millis) {
        this.delayMillis = millis;
        return this;
    }

    public int port() {
        return listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                open.add(client);
                open.add(server);
                AtomicBoolean requestPending = new AtomicBoolean();
                pump(client, server, requestPending, false);
                pump(server, client, requestPending, true);
            } catch (IOException e) {
                if (!listener.isClosed()) {
                    // a failed handshake or a refused target ends that connection only; keep accepting
                    continue;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, AtomicBoolean requestPending, boolean answers) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (!answers) {
                        requestPending.set(true);
                    } else if (requestPending.getAndSet(false) && delayMillis > 0) {
                        Thread.sleep(delayMillis);
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the other side closed: fall through and close both
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "delay-proxy-pump");
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
        open.forEach(DelayProxy::closeQuietly);
    }
}
