package io.nodegate.watch;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.nodegate.testing.SeedCluster;
import io.nodegate.source.tls.PemTls;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.DelayProxy;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Inside a Pod there is no kubeconfig: the watch must find the API server from KUBERNETES_SERVICE_HOST/PORT,
 * trust it with the service account's ca.crt and authenticate with its token. Played for real: a separate JVM
 * with no kubeconfig anywhere (HOME is empty), the service variables set, the token and CA at the paths a Pod
 * would have them (given through fabric8's system properties, as /var/run/secrets is not writable here), against
 * the test API server behind TLS (a certificate for 127.0.0.1 from a test CA) that answers 401 without the token.
 */
class WatchInClusterTest {

    @TempDir
    Path tmp;

    @Test
    void watchOnceAuthenticatesWithTheServiceAccountAndTrustsItsCa() throws Exception {
        TestCerts certs = TestCerts.create(Files.createDirectories(tmp.resolve("certs")));
        Path serviceAccount = Files.createDirectories(tmp.resolve("serviceaccount"));
        Path token = Files.writeString(serviceAccount.resolve("token"), "sa-token-for-the-test-only");
        Path ca = Files.copy(certs.caCert, serviceAccount.resolve("ca.crt"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        try (ApiTestServer api = ApiTestServer.start();
             DelayProxy tls = DelayProxy.start(api.url(), 0,
                     PemTls.sslContext(null, certs.serverCert, certs.serverKey))) {
            api.create(new NamespaceBuilder().withNewMetadata().withName("cattle-system").endMetadata().build());
            Instant now = Instant.now();
            api.create(SeedCluster.node("w1", "10.0.0.11", "True", false, Map.of("node-role.kubernetes.io/worker",
                    "true"), "boot-1", "uuid-shared", 0, now, now), SeedCluster.lease("w1", now));
            api.create(SeedCluster.node("w1-new", "10.0.0.12", "True", false, Map.of("node-role.kubernetes.io/worker",
                    "true"), "boot-2", "uuid-shared", 0, now, now), SeedCluster.lease("w1-new", now));
            api.requireBearerToken("sa-token-for-the-test-only");

            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dkubernetes.auth.serviceAccount.token=" + token,
                    "-Dkubernetes.certs.ca.file=" + ca,
                    "-Duser.home=" + home,
                    "-cp", System.getProperty("java.class.path"),
                    "io.nodegate.cli.Nodegate", "watch", "--once", "--sync-timeout", "60s"));
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().remove("KUBECONFIG");
            pb.environment().put("HOME", home.toString());
            pb.environment().put("KUBERNETES_SERVICE_HOST", "127.0.0.1");
            pb.environment().put("KUBERNETES_SERVICE_PORT", Integer.toString(tls.port()));
            pb.redirectError(tmp.resolve("stderr").toFile());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String err = Files.readString(tmp.resolve("stderr"));

            assertThat(p.exitValue()).as(err + out).isEqualTo(1);
            assertThat(out).contains("\"source\" : \"live: in-cluster (https://127.0.0.1:" + tls.port() + ")\"")
                    .contains("\"code\" : \"NG110\"");
            // it read the cluster with LIST + WATCH, every request carrying the token (else 401)
            assertThat(api.requestLog()).anyMatch(r -> r.startsWith("GET /api/v1/nodes?") && r.contains("watch=true"));
        }
    }
}
