package io.nodegate.cli;

import io.nodegate.ExitCode;
import io.nodegate.source.tls.PemTls;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.DelayProxy;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.nodegate.cli.ProbeApiserversCommandTest.port;
import static io.nodegate.cli.ProbeApiserversCommandTest.slice;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * TLS is verified per apiserver address, with the kubeconfig's CA: three HTTPS fronts (TLS-terminating proxies)
 * on 127.0.0.1, one with a certificate from the kubeconfig's CA carrying IP:127.0.0.1, one from another CA, one
 * from the right CA but without that IP among its SANs. Only the first is measured; the others are errors that
 * say why, and none of them is retried unverified.
 */
class ProbeApiserversTlsTest {

    private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";

    @TempDir
    Path dir;

    @Test
    void onlyTheApiserverWhoseCertificateCarriesItsAddressIsMeasured() throws Exception {
        Path certDir = Files.createDirectories(dir.resolve("certs"));
        TestCerts certs = TestCerts.create(certDir);
        // from the right CA, but its SANs do not include 127.0.0.1
        Path wrongSanCert = certs.serverCertificate("wrong-san", "/CN=kube-apiserver",
                "DNS:apiserver.example,IP:10.9.9.9");
        try (ApiTestServer a = ApiTestServer.start(); ApiTestServer b = ApiTestServer.start();
             ApiTestServer c = ApiTestServer.start();
             DelayProxy good = DelayProxy.start(a.url(), 0,
                     PemTls.sslContext(null, certs.serverCert, certs.serverKey));
             DelayProxy otherCa = DelayProxy.start(b.url(), 0,
                     PemTls.sslContext(null, certs.otherCaCert, certDir.resolve("other-ca.key")));
             DelayProxy wrongSan = DelayProxy.start(c.url(), 0,
                     PemTls.sslContext(null, wrongSanCert, certDir.resolve("wrong-san.key")))) {
            a.create(slice("kubernetes", good.port()), slice("kubernetes-b", otherCa.port()),
                    slice("kubernetes-c", wrongSan.port()));
            Path kubeconfig = kubeconfig("https://127.0.0.1:" + good.port(),
                    "certificate-authority: " + certs.caCert);

            CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString(), "--count", "2");

            assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(ExitCode.COLLECTION);
            assertThat(run.err()).contains("apiserver 127.0.0.1:" + otherCa.port() + " could not be measured: "
                    + "create Lease", "apiserver 127.0.0.1:" + wrongSan.port() + " could not be measured");
            assertThat(run.err().lines().filter(l -> l.contains("TLS verification failed")
                    && l.contains("carry 127.0.0.1 as a subject alternative name"))).hasSize(2);
            assertThat(run.out()).doesNotContain("probed over http");
            // a refused handshake sent nothing, so there is nothing to clean up there
            assertThat(run.out().lines().filter(l -> l.contains("ERROR") && l.endsWith("not created"))).hasSize(2);
            assertThat(a.requests("PUT", LEASES + "/" + leaseName(a))).isEqualTo(2);
            assertThat(a.client().leases().inNamespace("kube-system").list().getItems()).isEmpty();
            for (ApiTestServer unverified : List.of(b, c)) {
                // no request crossed an unverified connection
                assertThat(unverified.totalRequests()).isZero();
            }
        }
    }

    @Test
    void aKubeconfigThatSkipsVerificationIsRefused() {
        try (ApiTestServer a = ApiTestServer.start()) {
            a.create(slice("kubernetes", port(a)));
            Path kubeconfig = kubeconfig(a.url(), "insecure-skip-tls-verify: true");

            CliRun run = CliRun.run("probe", "apiservers", "--kubeconfig", kubeconfig.toString());

            assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
            assertThat(run.err()).contains("insecure-skip-tls-verify", "does not run unverified");
            assertThat(a.totalRequests()).isZero();
        }
    }

    private static String leaseName(ApiTestServer server) {
        return server.requestLog().stream().filter(l -> l.startsWith("PUT " + LEASES + "/")).findFirst()
                .map(l -> l.substring(("PUT " + LEASES + "/").length())).orElse("(none)");
    }

    private Path kubeconfig(String server, String clusterTrust) {
        String yaml = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: t
                  cluster:
                    server: %s
                    %s
                users:
                - name: t
                  user:
                    token: test-token-not-a-secret
                contexts:
                - name: t
                  context: {cluster: t, user: t}
                current-context: t
                """.formatted(server, clusterTrust);
        try {
            return Files.writeString(dir.resolve("kubeconfig"), yaml);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
