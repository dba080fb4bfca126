package io.nodegate.source.etcd;

import io.nodegate.InputException;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
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
    void sslContextBuildsForEachFormat() {
        assertThat(PemTls.sslContext(certs.caCert, certs.rsaCert, certs.rsaPkcs1Key)).isNotNull();
        assertThat(PemTls.sslContext(certs.caCert, certs.ecCert, certs.ecSec1Key)).isNotNull();
        assertThat(PemTls.sslContext(certs.caCert, certs.ecCert, certs.ecPkcs8Key)).isNotNull();
        assertThat(PemTls.sslContext(certs.caCert, null, null)).isNotNull();
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
