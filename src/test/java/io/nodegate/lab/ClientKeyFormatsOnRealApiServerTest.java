package io.nodegate.lab;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.nodegate.source.kube.KubeConnection;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kubeconfig's client key in each form kubectl reads (client-go's {@code keyutil.ParsePrivateKeyPEM}: PKCS#1
 * "RSA PRIVATE KEY", SEC1 "EC PRIVATE KEY" as RKE2 and k3s write it, with or without openssl's "EC PARAMETERS" block
 * before it, and PKCS#8 "PRIVATE KEY" for RSA and EC), with a certificate from the lab's CA: kubectl reads with it,
 * and so do nodegate's reads (audit) and its writes (the fabric8 client a write command builds).
 */
@ExtendWith(RealControlPlane.Resolver.class)
class ClientKeyFormatsOnRealApiServerTest {

    private static RealControlPlane lab;
    @TempDir
    static Path tmp;

    @BeforeAll
    static void lab(RealControlPlane controlPlane) {
        lab = controlPlane;
    }

    private static String openssl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + out).isZero();
        return out;
    }

    /** A key in the named form, a certificate for it from the lab's CA (system:masters), and a kubeconfig. */
    private static Path kubeconfig(String form, String header) throws Exception {
        Path key = tmp.resolve(form + ".key");
        switch (form) {
            case "pkcs1-rsa" -> openssl("genrsa", "-traditional", "-out", key.toString(), "2048");
            case "pkcs8-rsa" -> openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key.toString());
            case "sec1-ec" -> openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key.toString());
            case "sec1-ec-with-parameters" -> openssl("ecparam", "-name", "prime256v1", "-genkey", "-out", key.toString());
            case "pkcs8-ec" -> openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key.toString());
            default -> throw new IllegalArgumentException(form);
        }
        assertThat(Files.readString(key)).as("the key's PEM form").contains("-----BEGIN " + header + "-----");
        Path csr = tmp.resolve(form + ".csr");
        Path crt = tmp.resolve(form + ".crt");
        Path ext = tmp.resolve(form + ".ext");
        Files.writeString(ext, "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n");
        openssl("req", "-new", "-key", key.toString(), "-out", csr.toString(), "-subj", "/O=system:masters/CN=lab-key-" + form);
        Path pki = lab.dir().resolve("pki");
        openssl("x509", "-req", "-in", csr.toString(), "-CA", pki.resolve("ca.crt").toString(), "-CAkey",
                pki.resolve("ca.key").toString(), "-CAcreateserial", "-CAserial", tmp.resolve(form + ".srl").toString(),
                "-out", crt.toString(), "-days", "1", "-extfile", ext.toString());
        String server = Files.readAllLines(lab.kubeconfig()).stream().filter(l -> l.trim().startsWith("server:"))
                .findFirst().orElseThrow().trim().substring("server:".length()).trim();
        Path kc = tmp.resolve(form + ".kubeconfig");
        Files.writeString(kc, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: lab
                  cluster: {server: "%s", certificate-authority: "%s"}
                users:
                - name: %s
                  user: {client-certificate: "%s", client-key: "%s"}
                contexts:
                - name: %s
                  context: {cluster: lab, user: %s}
                current-context: %s
                """.formatted(server, pki.resolve("ca.crt"), form, crt, key, form, form, form));
        return kc;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"pkcs1-rsa, RSA PRIVATE KEY", "pkcs8-rsa, PRIVATE KEY", "sec1-ec, EC PRIVATE KEY",
            "sec1-ec-with-parameters, EC PRIVATE KEY", "pkcs8-ec, PRIVATE KEY"})
    void kubectlAndNodegatesReadsAndWritesAcceptTheKey(String form, String header) throws Exception {
        Path kc = kubeconfig(form, header);

        Process kubectl = new ProcessBuilder("kubectl", "--kubeconfig", kc.toString(), "--request-timeout=20s", "get",
                "node", RealControlPlane.server(1), "-o", "name").redirectErrorStream(true).start();
        String kubectlOut = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(kubectl.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(kubectl.exitValue()).as("kubectl: " + kubectlOut).isZero();

        CliRun audit = CliRun.run("audit", "--kubeconfig", kc.toString(), "-o", "json");
        assertThat(audit.exitCode()).as(audit.all()).isBetween(0, 1);
        assertThat(audit.out()).contains(RealControlPlane.server(1));

        try (KubeConnection connection = KubeConnection.open(kc, null, Duration.ofSeconds(20))) {
            String name = "t-key-" + form;
            ConfigMap written = connection.client().configMaps().inNamespace("default").resource(new ConfigMapBuilder()
                    .withNewMetadata().withName(name).endMetadata().withData(Map.of("form", form)).build()).create();
            assertThat(written.getMetadata().getUid()).isNotBlank();
            connection.client().configMaps().inNamespace("default").withName(name).delete();
        }
    }
}
