package io.nodegate.source.tls;

import io.nodegate.InputException;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PemTlsTest {

    @TempDir
    static Path tmp;

    private TestCerts certs;

    @BeforeAll
    void make() {
        certs = TestCerts.create(tmp);
    }

    @Test
    void pkcs1AndPkcs8RsaKeysAreTheSameKey() throws Exception {
        assertThat(Files.readString(certs.rsaPkcs1Key)).contains("BEGIN RSA PRIVATE KEY");
        assertThat(Files.readString(certs.rsaPkcs8Key)).contains("BEGIN PRIVATE KEY");
        PrivateKey pkcs1 = PemTls.privateKey(certs.rsaPkcs1Key);
        PrivateKey pkcs8 = PemTls.privateKey(certs.rsaPkcs8Key);
        assertThat(pkcs1).isInstanceOf(RSAPrivateCrtKey.class);
        assertThat(pkcs1.getEncoded()).isEqualTo(pkcs8.getEncoded());
    }

    @Test
    void sec1EcKeyAfterEcParametersBlockEqualsItsPkcs8Form() throws Exception {
        String sec1 = Files.readString(certs.ecSec1Key);
        assertThat(sec1).contains("BEGIN EC PARAMETERS").contains("BEGIN EC PRIVATE KEY");
        PrivateKey fromSec1 = PemTls.privateKey(certs.ecSec1Key);
        PrivateKey fromPkcs8 = PemTls.privateKey(certs.ecPkcs8Key);
        assertThat(fromSec1).isInstanceOf(ECPrivateKey.class);
        assertThat(((ECPrivateKey) fromSec1).getS()).isEqualTo(((ECPrivateKey) fromPkcs8).getS());
        assertThat(((ECPrivateKey) fromSec1).getParams().getCurve())
                .isEqualTo(((ECPrivateKey) fromPkcs8).getParams().getCurve());
    }

    @Test
    void eachKeyFormatCompletesAMutualTlsHandshake() throws Exception {
        SSLContext server = PemTls.sslContext(certs.caCert, certs.serverCert, certs.serverKey);
        Path[][] pairs = {{certs.rsaCert, certs.rsaPkcs1Key}, {certs.rsaCert, certs.rsaPkcs8Key},
                {certs.ecCert, certs.ecSec1Key}, {certs.ecCert, certs.ecPkcs8Key}};
        for (Path[] pair : pairs) {
            SSLContext client = PemTls.sslContext(certs.caCert, pair[0], pair[1]);
            String expected = PemTls.certificates(pair[0]).get(0).getSubjectX500Principal().getName();
            assertThat(handshake(server, client)).as(pair[1].getFileName().toString()).isEqualTo(expected);
        }
    }

    @Test
    void aClientThatTrustsAnotherCaRejectsTheServer() {
        SSLContext server = PemTls.sslContext(certs.caCert, certs.serverCert, certs.serverKey);
        SSLContext client = PemTls.sslContext(certs.otherCaCert, certs.rsaCert, certs.rsaPkcs1Key);
        assertThatThrownBy(() -> handshake(server, client)).isInstanceOf(SSLException.class);
    }

    /** One TLS handshake on loopback that requires a client certificate; returns the client subject the server saw. */
    private static String handshake(SSLContext server, SSLContext client) throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (SSLServerSocket listener = (SSLServerSocket) server.getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setNeedClientAuth(true);
            Future<String> seen = executor.submit(() -> {
                try (SSLSocket s = (SSLSocket) listener.accept()) {
                    s.setSoTimeout(10_000);
                    s.startHandshake();
                    s.getInputStream().read();
                    return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
                }
            });
            try (SSLSocket c = (SSLSocket) client.getSocketFactory()
                    .createSocket(InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
                c.setSoTimeout(10_000);
                c.startHandshake();
                c.getOutputStream().write(1);
                c.getOutputStream().flush();
            }
            return seen.get(20, TimeUnit.SECONDS);
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void encryptedKeyIsRefusedWithTheFileNamed() {
        assertThatThrownBy(() -> PemTls.privateKey(certs.ecEncryptedKey)).isInstanceOf(InputException.class)
                .hasMessageContaining(certs.ecEncryptedKey.toString()).hasMessageContaining("encrypted");
    }

    @Test
    void ecKeyWithExplicitCurveParametersIsRefused() {
        assertThatThrownBy(() -> PemTls.privateKey(certs.ecExplicitParamsKey)).isInstanceOf(InputException.class)
                .hasMessageContaining(certs.ecExplicitParamsKey.toString()).hasMessageContaining("names no curve");
    }

    @Test
    void certificateFileGivenAsKeyIsRefused() {
        assertThatThrownBy(() -> PemTls.privateKey(certs.caCert)).isInstanceOf(InputException.class)
                .hasMessageContaining(certs.caCert.toString()).hasMessageContaining("no private key found");
    }

    @Test
    void keyFileGivenAsCertificateIsRefused() {
        assertThatThrownBy(() -> PemTls.certificates(certs.ecPkcs8Key)).isInstanceOf(InputException.class)
                .hasMessageContaining("no PEM block 'BEGIN CERTIFICATE'");
    }

    @Test
    void corruptKeyBodyIsRefused() throws Exception {
        Path bad = tmp.resolve("bad.key");
        Files.writeString(bad, "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n");
        assertThatThrownBy(() -> PemTls.privateKey(bad)).isInstanceOf(InputException.class)
                .hasMessageContaining(bad.toString()).hasMessageContaining("not valid SEC1");
    }

    @Test
    void missingFileAndHalfAPairAreInputErrors() {
        Path missing = tmp.resolve("nope.crt");
        assertThatThrownBy(() -> PemTls.sslContext(missing, null, null)).isInstanceOf(InputException.class)
                .hasMessageContaining(missing + ": file not found");
        assertThatThrownBy(() -> PemTls.sslContext(certs.caCert, certs.ecCert, null))
                .isInstanceOf(InputException.class).hasMessageContaining("without --etcd-key");
    }

    @Test
    void mismatchedKeyAndCertificateAreRefused() {
        assertThatThrownBy(() -> PemTls.sslContext(certs.caCert, certs.rsaCert, certs.ecSec1Key))
                .isInstanceOf(InputException.class).hasMessageContaining("does not belong");
    }
}
