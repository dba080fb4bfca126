package io.nodegate.cli;

import io.nodegate.model.EtcdEndpointReport;
import io.nodegate.InputException;
import io.nodegate.source.etcd.EtcdSource;
import io.nodegate.source.tls.PemTls;
import picocli.CommandLine.Option;

import javax.net.ssl.SSLContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The etcdctl-like flags for reading etcd endpoints directly. */
public final class EtcdOptions {


    @Option(names = "--etcd-endpoint", paramLabel = "URL",
            description = "etcd client URL to query, e.g. https://10.0.0.1:2379 (repeatable; give every server: "
                    + "each is asked on its own, which is how split brain shows).")
    List<String> endpoints = new ArrayList<>();

    @Option(names = "--etcd-cacert", paramLabel = "FILE",
            description = "PEM CA bundle that signed the etcd server certificates "
                    + "(k3s: /var/lib/rancher/k3s/server/tls/etcd/server-ca.crt; RKE2: /var/lib/rancher/rke2/...). "
                    + "Default: the JDK trust store.")
    Path caCert;

    @Option(names = "--etcd-cert", paramLabel = "FILE",
            description = "PEM client certificate (k3s: .../tls/etcd/server-client.crt).")
    Path cert;

    @Option(names = "--etcd-key", paramLabel = "FILE",
            description = "PEM client key: PKCS#8, PKCS#1 RSA or SEC1 EC (k3s: .../tls/etcd/server-client.key).")
    Path key;

    @Option(names = "--etcd-timeout", paramLabel = "DURATION", defaultValue = "5s",
            converter = DurationConverter.Positive.class,
            description = "Deadline of each call to an endpoint, for the whole answer: connect, headers and body; 5s, "
                    + "1500ms (default: ${DEFAULT-VALUE}).")
    Duration timeout = Duration.ofSeconds(5);

    @Option(names = "--etcd-cluster",
            description = "Also query every client URL the answering endpoints list (like etcdctl --cluster), "
                    + "so one reachable endpoint is enough to reach the others.")
    boolean discover;

    public boolean live() {
        return !endpoints.isEmpty();
    }

    public List<URI> endpointUris() {
        List<URI> out = new ArrayList<>();
        for (String e : endpoints) {
            try {
                URI uri = new URI(e.trim());
                if (uri.getScheme() == null || uri.getHost() == null) {
                    throw new InputException("--etcd-endpoint " + e + ": expected http(s)://HOST:PORT");
                }
                out.add(uri);
            } catch (URISyntaxException ex) {
                throw new InputException("--etcd-endpoint " + e + ": not a URL: " + ex.getReason());
            }
        }
        return out;
    }

    public Duration timeout() {
        return timeout;
    }

    /** TLS settings from the PEM flags; null when none was given (https endpoints then use the JDK trust store). */
    public SSLContext sslContext() {
        if (caCert == null && cert == null && key == null) {
            return null;
        }
        return PemTls.sslContext(caCert, cert, key);
    }

    /** Queries every endpoint; flags and files are checked before any network call. */
    public List<EtcdEndpointReport> read() {
        List<URI> uris = endpointUris();
        Duration d = timeout();
        SSLContext ssl = sslContext();
        return new EtcdSource(d, ssl).read(uris, discover);
    }
}
