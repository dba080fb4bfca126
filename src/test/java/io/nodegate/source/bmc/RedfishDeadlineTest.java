package io.nodegate.source.bmc;

import io.nodegate.model.bmc.BmcReading;
import io.nodegate.source.tls.PemTls;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Redfish request has a deadline on the whole answer, not only the headers: a BMC that sends its headers at once
 * and then a byte a second, and one that accepts the connection and never answers, each end a read (and a command)
 * within the deadline it was given. Both are real TLS servers on loopback.
 */
class RedfishDeadlineTest {

    @TempDir
    static Path dir;
    static TestCerts certs;

    private final List<StallingServer> servers = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void certs() {
        certs = TestCerts.create(dir);
    }

    @AfterEach
    void stop() {
        servers.forEach(StallingServer::close);
    }

    /** A TLS server that reads each request, then answers as {@code mode} says. */
    static final class StallingServer implements AutoCloseable {
        enum Mode { TRICKLE, SILENT }

        final SSLServerSocket socket;
        final Mode mode;
        final List<Socket> open = new CopyOnWriteArrayList<>();
        final AtomicInteger requests = new AtomicInteger();
        volatile boolean closed;

        StallingServer(Mode mode) throws IOException {
            this.mode = mode;
            socket = (SSLServerSocket) PemTls.sslContext(null, certs.serverCert, certs.serverKey).getServerSocketFactory()
                    .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread t = new Thread(this::serve, "stalling-redfish");
            t.setDaemon(true);
            t.start();
        }

        String url() {
            return "https://127.0.0.1:" + socket.getLocalPort();
        }

        private void serve() {
            while (!closed) {
                try {
                    SSLSocket s = (SSLSocket) socket.accept();
                    open.add(s);
                    Thread t = new Thread(() -> answer(s), "stalling-redfish-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void answer(Socket s) {
            try (s) {
                InputStream in = s.getInputStream();
                // the request's head, up to the blank line
                int matched = 0;
                byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
                while (matched < 4) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    matched = b == end[matched] ? matched + 1 : (b == end[0] ? 1 : 0);
                }
                requests.incrementAndGet();
                if (mode == Mode.SILENT) {
                    // never answers: holds the connection until the client gives up
                    while (in.read() >= 0) {
                        // discard
                    }
                    return;
                }
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                // a byte a second: every read returns within the read timeout, the answer never ends
                while (!closed) {
                    Thread.sleep(1000);
                    out.write(' ');
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the client hung up: what the test wants
            }
        }

        @Override
        public void close() {
            closed = true;
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            for (Socket s : open) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }
    }

    private StallingServer server(StallingServer.Mode mode) throws IOException {
        StallingServer s = new StallingServer(mode);
        servers.add(s);
        return s;
    }

    private static BmcReading read(StallingServer server, Duration timeout, Duration deadline) {
        BmcSource source = new BmcSource(new BmcSource.Settings(BmcTls.verifying(certs.caCert), false, timeout,
                deadline, 1), Clock.systemUTC(), n -> { });
        return source.read(List.of(new BmcTarget(server.url(), new BmcCredentials("root", "calvin", "test"))))
                .bmcs().get(0);
    }

    @Test
    void aBmcThatTricklesItsBodyIsCutAtTheRequestTimeout() throws Exception {
        StallingServer trickle = server(StallingServer.Mode.TRICKLE);

        long start = System.nanoTime();
        BmcReading r = read(trickle, Duration.ofSeconds(3), Duration.ofSeconds(60));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(r.ok()).isFalse();
        assertThat(r.error()).contains("GET /redfish/v1: no answer within 3s (--bmc-timeout)");
        // 3 s, plus what a loaded 2-core machine adds to a TLS handshake (11 s seen beside two CPU hogs): never the
        // 100,000 s the trickle would take
        assertThat(took).isLessThan(Duration.ofSeconds(30));
        assertThat(trickle.requests.get()).isEqualTo(1);
    }

    @Test
    void aBmcThatNeverAnswersIsCutAtTheRequestTimeout() throws Exception {
        StallingServer silent = server(StallingServer.Mode.SILENT);

        long start = System.nanoTime();
        BmcReading r = read(silent, Duration.ofSeconds(3), Duration.ofSeconds(60));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(r.error()).contains("no answer within 3s");
        assertThat(took).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void theOverallDeadlineEndsATrickleEvenWhenEachRequestMayTakeLonger() throws Exception {
        StallingServer trickle = server(StallingServer.Mode.TRICKLE);

        long start = System.nanoTime();
        BmcReading r = read(trickle, Duration.ofMinutes(5), Duration.ofSeconds(3));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(r.error()).contains("not read within the overall deadline of 3s (--bmc-deadline)");
        // the deadline is 3 s; the bound leaves room for a loaded machine (11 s seen beside two CPU hogs), and is
        // still far from the 5 min each request may take
        assertThat(took).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void theBmcCommandEndsWithinItsDeadlineAgainstBothAndExits3() throws Exception {
        StallingServer trickle = server(StallingServer.Mode.TRICKLE);
        StallingServer silent = server(StallingServer.Mode.SILENT);
        Path credentials = Files.writeString(dir.resolve("creds.yaml"), "username: root\npassword: calvin\n");

        long start = System.nanoTime();
        CliRun run = CliRun.run("bmc", "-f", "examples/cluster-a-batch-stop", "--bmc", trickle.url(), "--bmc",
                silent.url(), "--bmc-credentials", credentials.toString(), "--bmc-ca", certs.caCert.toString(),
                "--bmc-timeout", "3s", "--bmc-deadline", "5s");
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.all()).contains("no answer within 3s");
        assertThat(took).as(run.all()).isLessThan(Duration.ofSeconds(40));
    }
}
