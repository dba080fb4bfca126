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

    /** A CA certificate and its key, made by {@link #authority}. */
    public record Authority(String name, Path cert, Path key) {
    }

    /** A serving certificate: {@code chain} holds the leaf, then the CA that signed it (as the kubelet presents it). */
    public record Serving(Path chain, Path key) {
    }

    /**
     * A CA named as a cluster names it, with a key of its own. RKE2/k3s: k3s
     * {@code pkg/daemons/control/deps/deps.go} (createSigningCertKey) names each cluster CA
     * {@code <prefix>-ca@<unix time>} ({@code rke2-server-ca@…}, {@code k3s-server-ca@…}, {@code rke2-client-ca@…}),
     * with a fresh key per cluster (dynamiclistener's cert helpers make EC P-256 keys); rke2 is k3s built with
     * {@code version.Program=rke2} (rke2 {@code scripts/build-binary}). Two clusters can hold CAs of the same
     * name; only the key tells them apart.
     */
    public Authority authority(String base, String commonName) {
        return authority(base, commonName, false);
    }

    private Authority authority(String base, String commonName, boolean rsa) {
        List<String> key = rsa ? List.of("-newkey", "rsa:2048")
                : List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1");
        List<String> cmd = new ArrayList<>(List.of(openssl, "req", "-x509"));
        cmd.addAll(key);
        cmd.addAll(List.of("-nodes", "-keyout", base + ".key", "-out", base + ".crt", "-days", "2",
                "-subj", "/CN=" + commonName, "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign"));
        run(cmd.toArray(String[]::new));
        return new Authority(commonName, dir.resolve(base + ".crt"), dir.resolve(base + ".key"));
    }

    /**
     * An RKE2/k3s kubelet serving certificate as the server signs it for an agent: k3s
     * {@code pkg/server/handlers/handlers.go} (ServingKubeletCert) gives CN=&lt;node name&gt;, DNS names
     * [node name, localhost], IPs [127.0.0.1, the node IPs], serverAuth, signed by the server CA, and sends the
     * certificate followed by the CA bundle (util.EncodeCertsPEM), which the kubelet then presents as its chain.
     */
    public Serving kubeletServing(Authority ca, String base, String nodeName, String nodeIp) {
        return issue(ca, base, "/CN=" + nodeName, "subjectAltName=DNS:" + nodeName + ",DNS:localhost,IP:127.0.0.1,IP:"
                + nodeIp + "\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n", false);
    }

    /**
     * A kubelet's own self-signed serving certificate, as the kubelet makes it when it has none (kubernetes
     * {@code cmd/kubelet/app/server.go}, InitializeTLS, calls client-go {@code util/cert/cert.go}
     * GenerateSelfSignedCertKey(hostname)): an RSA 2048 CA {@code CN=<host>-ca@<unix>} (keyEncipherment,
     * digitalSignature, certSign; CA:true), a leaf {@code CN=<host>@<unix>} with DNS name host and serverAuth, signed
     * by that CA, written leaf first then the CA. kubeadm clusters without serverTLSBootstrap serve this.
     */
    public Serving kubeletSelfSigned(String base, String host, long unixTime) {
        Authority ca = authority(base + "-ca", host + "-ca@" + unixTime, true);
        return issue(ca, base, "/CN=" + host + "@" + unixTime, "subjectAltName=DNS:" + host + "\nextendedKeyUsage="
                + "serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=critical,CA:FALSE\n", true);
    }

    /** A leaf signed by {@code ca} with the given extensions; its chain file is the leaf, then the CA. */
    private Serving issue(Authority ca, String base, String subject, String extensions, boolean rsa) {
        try {
            Files.writeString(dir.resolve(base + ".ext"), extensions);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (rsa) {
            run(openssl, "genrsa", "-out", base + ".key", "2048");
        } else {
            run(openssl, "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", base + ".key");
        }
        run(openssl, "req", "-new", "-key", base + ".key", "-out", base + ".csr", "-subj", subject);
        run(openssl, "x509", "-req", "-in", base + ".csr", "-CA", ca.cert().getFileName().toString(), "-CAkey",
                ca.key().getFileName().toString(), "-CAcreateserial", "-out", base + ".leaf.crt", "-days", "2",
                "-extfile", base + ".ext");
        return new Serving(concat(base + ".crt", base + ".leaf.crt", ca.cert().getFileName().toString()),
                dir.resolve(base + ".key"));
    }

    /**
     * A forgery of the self-signed shape: a leaf {@code CN=<host>@<unix>} signed by one key, presented with a CA
     * {@code CN=<host>-ca@<unix>} of another key. The names say "the kubelet's own"; the signature does not.
     */
    public Serving forgedSelfSigned(String base, String host, long unixTime) {
        Serving real = kubeletSelfSigned(base + "-real", host, unixTime);
        kubeletSelfSigned(base + "-decoy", host, unixTime);
        return new Serving(concat(base + ".crt", base + "-real.leaf.crt", base + "-decoy-ca.crt"), real.key());
    }

    private Path concat(String out, String... parts) {
        try {
            StringBuilder b = new StringBuilder();
            for (String p : parts) {
                b.append(Files.readString(dir.resolve(p)));
            }
            return Files.writeString(dir.resolve(out), b.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
