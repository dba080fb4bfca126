package io.nodegate.testing;

import io.nodegate.source.tls.PemTls;

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
 * must send none). {@link #plainTcp} instead accepts connections and never speaks TLS; {@link #resetting} accepts
 * and resets at once; {@link #dripping} answers one byte a second, forever (a handshake that never ends).
 */
public final class KubeletTlsServer implements AutoCloseable {

    private final ServerSocket socket;
    private final Thread acceptor;
    public final AtomicInteger connections = new AtomicInteger();
    public final AtomicInteger handshakes = new AtomicInteger();
    public final AtomicInteger applicationBytes = new AtomicInteger();

    private enum Mode { TLS, SILENT, RESET, DRIP }

    private final Mode mode;

    private KubeletTlsServer(ServerSocket socket, boolean tls) {
        this(socket, tls ? Mode.TLS : Mode.SILENT);
    }

    private KubeletTlsServer(ServerSocket socket, Mode mode) {
        this(socket, mode, true);
    }

    private KubeletTlsServer(ServerSocket socket, Mode mode, boolean accepting) {
        this.socket = socket;
        this.mode = mode;
        this.acceptor = new Thread(() -> acceptLoop(mode == Mode.TLS), "kubelet-tls-server");
        acceptor.setDaemon(true);
        if (accepting) {
            acceptor.start();
        }
    }

    private final java.util.List<Socket> fillers = new java.util.concurrent.CopyOnWriteArrayList<>();

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

    /**
     * A port that never answers a new connection, as a powered-off host's port (no SYN-ACK, no RST): it listens with
     * a backlog of one and never accepts, and its accept queue is filled first, so Linux drops further SYNs
     * (tcp_conn_request drops a SYN when the accept queue is full). A connect to it times out.
     */
    public static KubeletTlsServer unanswering(String address, int port) {
        try {
            ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName(address));
            KubeletTlsServer server = new KubeletTlsServer(s, Mode.SILENT, false);
            for (int i = 0; i < 8; i++) {
                Socket filler = new Socket();
                try {
                    filler.connect(new java.net.InetSocketAddress(address, s.getLocalPort()), 300);
                    server.fillers.add(filler);
                } catch (java.net.SocketTimeoutException full) {
                    filler.close();
                    return server;
                }
            }
            server.close();
            throw new IllegalStateException("the accept queue of " + address + ":" + port + " never filled");
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on " + address + ":" + port + ": " + e, e);
        }
    }

    /** Accepts TCP connections on address:port and resets each at once (RST, not FIN). */
    public static KubeletTlsServer resetting(String address, int port) {
        try {
            return new KubeletTlsServer(new ServerSocket(port, 50, InetAddress.getByName(address)), Mode.RESET);
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on " + address + ":" + port + ": " + e, e);
        }
    }

    /**
     * Accepts TCP connections and sends one byte a second: the start of a TLS record that announces 16 KB, so a
     * client waiting for the ServerHello is always just about to get it, and a per-read timeout never fires.
     */
    public static KubeletTlsServer dripping(String address, int port) {
        try {
            return new KubeletTlsServer(new ServerSocket(port, 50, InetAddress.getByName(address)), Mode.DRIP);
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
        if (mode == Mode.RESET) {
            try {
                c.setSoLinger(true, 0);
                c.close();
            } catch (IOException ignored) {
                // reset sent
            }
            return;
        }
        if (mode == Mode.DRIP) {
            byte[] record = {0x16, 0x03, 0x03, 0x40, 0x00};
            try (c) {
                var out = c.getOutputStream();
                for (int i = 0; !socket.isClosed(); i++) {
                    out.write(i < record.length ? record[i] : 0);
                    out.flush();
                    Thread.sleep(1000);
                }
            } catch (IOException | InterruptedException e) {
                // the client gave up, as it must
            }
            return;
        }
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
        for (Socket f : fillers) {
            try {
                f.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
