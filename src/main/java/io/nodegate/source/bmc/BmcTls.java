package io.nodegate.source.bmc;

import io.nodegate.InputException;
import io.nodegate.source.tls.PemTls;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;

/**
 * How BMC certificates are checked: against --bmc-ca (the certificate's chain and its name, the URL's host), against
 * the JDK's trust store when no CA is given, or not at all with --bmc-insecure-skip-tls-verify. BMCs often ship
 * self-signed certificates, so the last exists; it is spelled out, and every run that uses it says so. A certificate
 * that fails verification is an error naming the BMC, never a fallback to not checking.
 */
public final class BmcTls {

    /** What every run with --bmc-insecure-skip-tls-verify prints first. */
    public static final String INSECURE_WARNING = "warning: --bmc-insecure-skip-tls-verify: BMC certificates are not "
            + "verified; anyone on the network path can read the BMC password and answer in the BMC's name";

    private final SSLContext context;
    private final boolean insecure;
    private final String describe;

    private BmcTls(SSLContext context, boolean insecure, String describe) {
        this.context = context;
        this.insecure = insecure;
        this.describe = describe;
    }

    /** @param caFile the CA bundle (PEM) BMC certificates must chain to; null for the JDK's trust store */
    public static BmcTls verifying(Path caFile) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            if (caFile == null) {
                tmf.init((KeyStore) null);
            } else {
                KeyStore trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                int i = 0;
                for (X509Certificate ca : caCertificates(caFile)) {
                    trust.setCertificateEntry("bmc-ca-" + i++, ca);
                }
                tmf.init(trust);
            }
            ctx.init(null, tmf.getTrustManagers(), null);
            return new BmcTls(ctx, false, caFile == null ? "the JDK's trust store" : "--bmc-ca " + caFile);
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new InputException("--bmc-ca " + caFile + ": cannot build a trust store from it: " + e.getMessage(), e);
        }
    }

    private static java.util.List<X509Certificate> caCertificates(Path caFile) {
        try {
            return PemTls.certificates(caFile);
        } catch (InputException e) {
            throw new InputException("--bmc-ca: " + e.getMessage(), e);
        }
    }

    /** Trusts any certificate and any name: --bmc-insecure-skip-tls-verify. */
    public static BmcTls skippingVerification() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[]{new TrustAnything()}, null);
            return new BmcTls(ctx, true, "not verified (--bmc-insecure-skip-tls-verify)");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TLS is not available in this JVM", e);
        }
    }

    SSLContext context() {
        return context;
    }

    public boolean skipsVerification() {
        return insecure;
    }

    /** Where trust comes from, for messages ("--bmc-ca ca.pem"). */
    public String describe() {
        return describe;
    }

    /**
     * An extended trust manager that accepts everything. Being an X509ExtendedTrustManager, the JDK leaves the name
     * check to it as well, so the certificate's name is not checked either: that is what "skip verify" means.
     */
    private static final class TrustAnything extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
