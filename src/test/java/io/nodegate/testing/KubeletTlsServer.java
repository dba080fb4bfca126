package io.nodegate.testing;

import io.nodegate.source.etcd.PemTls;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kubelet serving port on a loopback address: it presents a serving certificate in the TLS handshake, as the
 * kubelet does, and counts the connections and the application bytes a client sends after the handshake (a probe
 * must send none). {@link #plainTcp} instead accepts connections and never speaks TLS.
 */
public final class KubeletTlsServer implements AutoCloseable {

    private final ServerSocket socket;
    private final Thread acceptor;
    public final AtomicInteger connections = new AtomicInteger();
    public final AtomicInteger handshakes = new AtomicInteger();
    public final AtomicInteger applicationBytes = new AtomicInteger();

    private KubeletTlsServer(ServerSocket socket, boolean tls) {
        this.socket = socket;
        this.acceptor = new Thread(() -> acceptLoop(tls), "kubelet-tls-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Serves {@code cert}/{@code key} on address:port (port 0 = any free port). */
    public static KubeletTlsServer start(String address, int port, Path cert, Path key) {
        try {
            SSLContext ctx = PemTls.sslContext(null, cert, key);
            SSLServerSocket s = (SSLServerSocket) ctx.getServerSocketFactory()
                    .createServerSocket(port, 50, InetAddress.getByName(address));
            return new KubeletTlsServer(s, true);
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on " + address + ":" + port + ": " + e, e);
        }
    }

    /** Accepts TCP connections on address:port and never answers. */
    public static KubeletTlsServer plainTcp(String address, int port) {
        try {
            return new KubeletTlsServer(new ServerSocket(port, 50, InetAddress.getByName(address)), false);
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on " + address + ":" + port + ": " + e, e);
        }
    }

    public int port() {
        return socket.getLocalPort();
    }

    private void acceptLoop(boolean tls) {
        while (!socket.isClosed()) {
            Socket c;
            try {
                c = socket.accept();
            } catch (IOException e) {
                return;
            }
            connections.incrementAndGet();
            Thread t = new Thread(() -> serve(c, tls), "kubelet-tls-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(Socket c, boolean tls) {
        try (c) {
            c.setSoTimeout(5000);
            if (tls) {
                ((SSLSocket) c).startHandshake();
                handshakes.incrementAndGet();
            }
            InputStream in = c.getInputStream();
            byte[] buf = new byte[1024];
            int n;
            while ((n = in.read(buf)) > 0) {
                applicationBytes.addAndGet(n);
            }
        } catch (IOException e) {
            // the client closed or refused our certificate: that is what a probe does
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
