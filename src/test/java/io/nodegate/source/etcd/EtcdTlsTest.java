package io.nodegate.source.etcd;

import io.nodegate.testing.CliRun;
import io.nodegate.testing.EtcdCluster;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A real etcd that demands client certificates (--client-cert-auth), read with each key format. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdTlsTest {

    @TempDir
    static Path tmp;

    private TestCerts certs;
    private EtcdCluster cluster;

    @BeforeAll
    void start() {
        EtcdCluster.requireEtcd();
        certs = TestCerts.create(tmp);
        cluster = EtcdCluster.start(new EtcdCluster.Tls(certs.caCert, certs.serverCert, certs.serverKey, certs.ecCert,
                certs.ecSec1Key), "tls-a");
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rsa-pkcs1", "rsa-pkcs8", "ec-sec1", "ec-pkcs8"})
    void readsWithEveryKeyFormat(String format) {
        Path cert = format.startsWith("rsa") ? certs.rsaCert : certs.ecCert;
        Path key = switch (format) {
            case "rsa-pkcs1" -> certs.rsaPkcs1Key;
            case "rsa-pkcs8" -> certs.rsaPkcs8Key;
            case "ec-sec1" -> certs.ecSec1Key;
            default -> certs.ecPkcs8Key;
        };
        CliRun run = CliRun.run("etcd", "-o", "json", "--etcd-endpoint", cluster.member("tls-a").clientUrl(),
                "--etcd-cacert", certs.caCert.toString(), "--etcd-cert", cert.toString(), "--etcd-key", key.toString());
        // one member: NG202 warns (no redundancy), so 1, not 0, and never 3
        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        JsonNode ep = JsonMapper.builder().build().readTree(run.out()).path("endpoints").get(0);
        assertThat(ep.path("error").isNull()).as(run.out()).isTrue();
        assertThat(ep.path("member").asString()).isEqualTo("tls-a");
        assertThat(ep.path("clusterId").asString()).isNotEmpty();
    }

    @Test
    void withoutClientCertificateTheEndpointErrorIsRecordedAndNothingAnswered() {
        CliRun run = CliRun.run("etcd", "-o", "json", "--etcd-endpoint", cluster.member("tls-a").clientUrl(),
                "--etcd-cacert", certs.caCert.toString(), "--etcd-timeout", "3s");
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.err()).contains("no etcd endpoint answered");
        JsonNode ep = JsonMapper.builder().build().readTree(run.out()).path("endpoints").get(0);
        // etcd 3.4 rejects the handshake: "TLS failed: Received fatal alert: bad_certificate"
        assertThat(ep.path("error").asString()).startsWith("TLS failed:");
    }

    @Test
    void serverSignedByAnotherCaIsNotTrusted() {
        CliRun run = CliRun.run("etcd", "--etcd-endpoint", cluster.member("tls-a").clientUrl(),
                "--etcd-cacert", certs.otherCaCert.toString(), "--etcd-cert", certs.ecCert.toString(),
                "--etcd-key", certs.ecSec1Key.toString());
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.out()).contains("TLS failed");
    }

    @Test
    void keyOfAnotherCertificateIsAnInputError() {
        CliRun run = CliRun.run("etcd", "--etcd-endpoint", cluster.member("tls-a").clientUrl(),
                "--etcd-cacert", certs.caCert.toString(), "--etcd-cert", certs.ecCert.toString(),
                "--etcd-key", certs.rsaPkcs1Key.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(certs.rsaPkcs1Key.toString()).contains("does not belong to the certificate");
        assertThat(run.out()).isEmpty();
    }
}
