package io.nodegate.source.tls;

import io.nodegate.InputException;
import io.nodegate.source.InputFiles;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds an SSLContext from the PEM files etcdctl takes (--cacert, --cert, --key) with the JDK alone.
 * Keys may be PKCS#8 ("PRIVATE KEY"), PKCS#1 RSA ("RSA PRIVATE KEY") or SEC1 EC ("EC PRIVATE KEY", what
 * k3s and RKE2 write for etcd client certs). The JDK only reads PKCS#8, so the other two are wrapped into a
 * PKCS#8 PrivateKeyInfo by hand (see {@link Der}). Every problem is an {@link InputException} naming the file.
 */
public final class PemTls {

    private static final Pattern BLOCK =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([\\s\\S]*?)-----END \\1-----");

    private PemTls() {
    }

    /**
     * @param caFile   CA bundle to verify the server with; null = the JDK's default trust store
     * @param certFile client certificate (chain); null together with keyFile = no client authentication
     * @param keyFile  client private key
     */
    public static SSLContext sslContext(Path caFile, Path certFile, Path keyFile) {
        if ((certFile == null) != (keyFile == null)) {
            throw new InputException(certFile == null
                    ? "--etcd-key " + keyFile + " was given without --etcd-cert"
                    : "--etcd-cert " + certFile + " was given without --etcd-key");
        }
        try {
            TrustManagerFactory tmf = null;
            if (caFile != null) {
                KeyStore trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                int i = 0;
                for (X509Certificate ca : certificates(caFile)) {
                    trust.setCertificateEntry("ca-" + i++, ca);
                }
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
            }
            KeyManagerFactory kmf = null;
            if (certFile != null) {
                List<X509Certificate> chain = certificates(certFile);
                PrivateKey key = privateKey(keyFile);
                requireMatch(key, chain.get(0), keyFile, certFile);
                char[] password = new char[0];
                KeyStore identity = KeyStore.getInstance("PKCS12");
                identity.load(null, null);
                identity.setKeyEntry("client", key, password, chain.toArray(new Certificate[0]));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(identity, password);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(),
                    new SecureRandom());
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new InputException("cannot build TLS settings from the etcd certificate files: " + e.getMessage(), e);
        }
    }

    /** All certificates in a PEM file; at least one. */
    public static List<X509Certificate> certificates(Path file) {
        return certificates(read(file), file.toString());
    }

    /** All certificates in PEM text; at least one. {@code file} names where the text came from, for messages. */
    public static List<X509Certificate> certificates(String text, String file) {
        List<X509Certificate> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            while (m.find()) {
                if (!m.group(1).equals("CERTIFICATE")) {
                    continue;
                }
                byte[] der = base64(m.group(2), file);
                out.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(der)));
            }
        } catch (CertificateException e) {
            throw new InputException(file + ": not a valid X.509 certificate: " + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new InputException(file + ": no PEM block 'BEGIN CERTIFICATE' found");
        }
        return out;
    }

    /** The first private key in a PEM file, in any of the three formats. */
    public static PrivateKey privateKey(Path file) {
        return privateKey(read(file), file.toString());
    }

    /** The first private key in PEM text, in any of the three formats; {@code file} names its origin. */
    public static PrivateKey privateKey(String text, String file) {
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            String type = m.group(1);
            switch (type) {
                case "PRIVATE KEY":
                    return pkcs8(base64(m.group(2), file), file, "PKCS#8");
                case "RSA PRIVATE KEY": {
                    rejectLegacyEncryption(m.group(2), file);
                    byte[] pkcs1 = base64(m.group(2), file);
                    byte[] algId = Der.sequence(Der.tlv(Der.OID, Der.RSA_ENCRYPTION_OID), Der.tlv(Der.NULL, new byte[0]));
                    return pkcs8(Der.privateKeyInfo(algId, pkcs1), file, "PKCS#1 RSA");
                }
                case "EC PRIVATE KEY":
                    rejectLegacyEncryption(m.group(2), file);
                    return pkcs8(sec1ToPkcs8(base64(m.group(2), file), file), file, "SEC1 EC");
                case "ENCRYPTED PRIVATE KEY":
                    throw new InputException(file + ": the private key is encrypted; decrypt it first "
                            + "(openssl pkcs8 -in " + file + " -out key.pem)");
                default:
                    // e.g. "EC PARAMETERS" written by `openssl ecparam -genkey` ahead of the key
            }
        }
        throw new InputException(file + ": no private key found (expected a PEM block 'BEGIN PRIVATE KEY', "
                + "'BEGIN RSA PRIVATE KEY' or 'BEGIN EC PRIVATE KEY')");
    }

    /**
     * SEC1 ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING, [0] parameters, [1] publicKey }.
     * PKCS#8 wants the curve in the AlgorithmIdentifier, so it is lifted out of [0]; the SEC1 bytes go into
     * the OCTET STRING unchanged.
     */
    static byte[] sec1ToPkcs8(byte[] sec1, String file) {
        byte[] curveOid = null;
        try {
            for (Der.Tlv field : Der.children(Der.topSequence(sec1).content())) {
                if (field.tag() == Der.CONTEXT_0) {
                    List<Der.Tlv> params = Der.children(field.content());
                    if (params.size() == 1 && params.get(0).tag() == Der.OID) {
                        curveOid = params.get(0).encoded();
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            throw new InputException(file + ": 'EC PRIVATE KEY' is not valid SEC1 DER: " + e.getMessage(), e);
        }
        if (curveOid == null) {
            throw new InputException(file + ": 'EC PRIVATE KEY' names no curve (SEC1 [0] parameters missing "
                    + "or not a named curve); convert it with: openssl pkcs8 -topk8 -nocrypt -in " + file);
        }
        byte[] algId = Der.sequence(Der.tlv(Der.OID, Der.EC_PUBLIC_KEY_OID), curveOid);
        return Der.privateKeyInfo(algId, sec1);
    }

    private static PrivateKey pkcs8(byte[] der, String file, String format) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                // try the next algorithm: PKCS#8 names it inside, KeyFactory insists on being told
            }
        }
        throw new InputException(file + ": cannot read the " + format + " private key (unsupported algorithm "
                + "or corrupt key)");
    }

    /** A key that does not belong to the certificate fails the TLS handshake with an unhelpful alert: say so now. */
    public static void requireMatch(PrivateKey key, X509Certificate cert, Object keyFile, Object certFile) {
        String alg = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448" -> key.getAlgorithm();
            default -> null;
        };
        if (alg == null) {
            return;
        }
        try {
            byte[] probe = "nodegate key/cert match".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(alg);
            signer.initSign(key);
            signer.update(probe);
            byte[] sig = signer.sign();
            Signature verifier = Signature.getInstance(alg);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(probe);
            if (verifier.verify(sig)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // a different key type than the certificate's also ends here
        }
        throw new InputException(keyFile + ": the private key does not belong to the certificate in " + certFile
                + " (" + cert.getSubjectX500Principal().getName() + ")");
    }

    private static void rejectLegacyEncryption(String body, String file) {
        if (body.contains("Proc-Type: 4,ENCRYPTED")) {
            throw new InputException(file + ": the private key is encrypted (Proc-Type: 4,ENCRYPTED); decrypt it "
                    + "first (openssl pkey -in " + file + " -out key.pem)");
        }
    }

    private static String read(Path file) {
        if (!Files.exists(file)) {
            throw new InputException(file + ": file not found");
        }
        return new String(InputFiles.read(file, "PEM file", InputFiles.SMALL),
                StandardCharsets.ISO_8859_1);
    }

    private static byte[] base64(String body, String file) {
        try {
            return Base64.getMimeDecoder().decode(body.replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw new InputException(file + ": PEM body is not valid base64", e);
        }
    }
}
