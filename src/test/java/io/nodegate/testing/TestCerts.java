package io.nodegate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Certificates made with the real openssl CLI, the way operators make them: a CA, an etcd server certificate
 * for 127.0.0.1, and client certificates with an RSA key (PKCS#1), an EC key (SEC1, with the EC PARAMETERS
 * block openssl writes ahead of it, as k3s-style files may have) and PKCS#8 copies of both.
 */
public final class TestCerts {

    public final Path dir;
    public final Path caCert;
    public final Path serverCert;
    public final Path serverKey;
    public final Path rsaCert;
    public final Path rsaPkcs1Key;
    public final Path rsaPkcs8Key;
    public final Path ecCert;
    public final Path ecSec1Key;
    public final Path ecPkcs8Key;
    public final Path ecEncryptedKey;
    public final Path ecExplicitParamsKey;
    public final Path otherCaCert;
    private final String openssl;

    private TestCerts(Path dir, String openssl) {
        this.dir = dir;
        this.openssl = openssl;
        caCert = dir.resolve("ca.crt");
        serverCert = dir.resolve("server.crt");
        serverKey = dir.resolve("server.key");
        rsaCert = dir.resolve("client-rsa.crt");
        rsaPkcs1Key = dir.resolve("client-rsa.key");
        rsaPkcs8Key = dir.resolve("client-rsa-pkcs8.key");
        ecCert = dir.resolve("client-ec.crt");
        ecSec1Key = dir.resolve("client-ec.key");
        ecPkcs8Key = dir.resolve("client-ec-pkcs8.key");
        ecEncryptedKey = dir.resolve("client-ec-encrypted.key");
        ecExplicitParamsKey = dir.resolve("client-ec-explicit.key");
        otherCaCert = dir.resolve("other-ca.crt");
    }

    public static TestCerts create(Path dir) {
        String openssl = EtcdCluster.requireOnPath("openssl", "openssl is required in CI", "openssl not installed");
        TestCerts c = new TestCerts(dir, openssl);
        try {
            Files.writeString(dir.resolve("server.ext"),
                    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
            Files.writeString(dir.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        c.run(openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=nodegate-test-etcd-ca");
        c.run(openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "other-ca.key", "-out", "other-ca.crt", "-days", "2", "-subj", "/CN=someone-else");
        c.run(openssl, "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "server.key");
        c.sign("server", "/CN=etcd-server", "server.ext");
        c.run(openssl, "genrsa", "-traditional", "-out", "client-rsa.key", "2048");
        c.sign("client-rsa", "/CN=etcd-client-rsa", "client.ext");
        c.run(openssl, "pkcs8", "-topk8", "-nocrypt", "-in", "client-rsa.key", "-out", "client-rsa-pkcs8.key");
        c.run(openssl, "ecparam", "-name", "prime256v1", "-genkey", "-out", "client-ec.key");
        c.sign("client-ec", "/CN=etcd-client-ec", "client.ext");
        c.run(openssl, "pkcs8", "-topk8", "-nocrypt", "-in", "client-ec.key", "-out", "client-ec-pkcs8.key");
        c.run(openssl, "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:secret", "-in", "client-ec.key",
                "-out", "client-ec-encrypted.key");
        c.run(openssl, "ecparam", "-name", "prime256v1", "-param_enc", "explicit", "-genkey", "-noout",
                "-out", "client-ec-explicit.key");
        return c;
    }

    /**
     * Another server certificate signed by this CA, with its own EC key ({@code <base>.key}) and the given
     * subjectAltName (e.g. {@code DNS:apiserver.example,IP:10.9.9.9}). Returns {@code <base>.crt}.
     */
    public Path serverCertificate(String base, String subject, String subjectAltName) {
        try {
            Files.writeString(dir.resolve(base + ".ext"), "subjectAltName=" + subjectAltName + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        run(openssl, "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", base + ".key");
        sign(base, subject, base + ".ext");
        return dir.resolve(base + ".crt");
    }

    /**
     * A server certificate signed by the other CA ({@link #otherCaCert}, CN=someone-else): what a kubelet of
     * another cluster presents. Returns {@code <base>.crt}; its key is {@code <base>.key}.
     */
    public Path otherCaServerCertificate(String base, String subject, String subjectAltName) {
        try {
            Files.writeString(dir.resolve(base + ".ext"), "subjectAltName=" + subjectAltName + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        run(openssl, "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", base + ".key");
        run(openssl, "req", "-new", "-key", base + ".key", "-out", base + ".csr", "-subj", subject);
        run(openssl, "x509", "-req", "-in", base + ".csr", "-CA", "other-ca.crt", "-CAkey", "other-ca.key",
                "-CAcreateserial", "-out", base + ".crt", "-days", "2", "-extfile", base + ".ext");
        return dir.resolve(base + ".crt");
    }

    private void sign(String base, String subject, String ext) {
        run(openssl, "req", "-new", "-key", base + ".key", "-out", base + ".csr", "-subj", subject);
        run(openssl, "x509", "-req", "-in", base + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", base + ".crt", "-days", "2", "-extfile", ext);
    }

    private void run(String... cmd) {
        try {
            Process p = new ProcessBuilder(new ArrayList<>(List.of(cmd))).directory(dir.toFile())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
