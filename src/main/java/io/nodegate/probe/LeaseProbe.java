package io.nodegate.probe;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.nodegate.model.probe.ApiserverTarget;
import io.nodegate.model.probe.EndpointResult;
import io.nodegate.model.probe.ProbeSettings;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Renews a Lease of nodegate's own against each apiserver directly, the way a leader-election client does
 * (PUT with a new spec.renewTime), and times each PUT. The apiserver is reached at its EndpointSlice address
 * with the kubeconfig's credentials and CA: TLS is verified as for the kubeconfig's server, so the apiserver's
 * certificate must carry that address as a SAN. There is no unverified fallback.
 *
 * <p>The probe Lease is deleted whatever happens after its creation was attempted; when that fails through
 * the apiserver being probed, the kubeconfig's server is tried (all apiservers share one etcd).
 */
public final class LeaseProbe {

    private final Config base;
    private final KubernetesClient fallback;
    private final ProbeSettings settings;

    /**
     * @param base     the kubeconfig's resolved configuration (credentials, CA, timeouts)
     * @param fallback a client on the kubeconfig's server, used only to delete a Lease the probed apiserver
     *                 would not delete
     */
    public LeaseProbe(Config base, KubernetesClient fallback, ProbeSettings settings) {
        this.base = base;
        this.fallback = fallback;
        this.settings = settings;
    }

    /** The scheme of the kubeconfig's server: apiservers are reached the way the kubeconfig reaches one. */
    public static String scheme(Config config) {
        String url = config.getMasterUrl();
        return url != null && url.toLowerCase().startsWith("http://") ? "http" : "https";
    }

    public List<EndpointResult> probeAll(List<ApiserverTarget> targets) {
        List<EndpointResult> results = new ArrayList<>();
        // one after another: parallel probes would load the apiservers (and etcd) with each other's writes
        for (ApiserverTarget t : targets) {
            results.add(probe(t));
        }
        return List.copyOf(results);
    }

    public EndpointResult probe(ApiserverTarget target) {
        String url = target.url(scheme(base));
        List<Duration> renewals = new ArrayList<>();
        KubernetesClient client;
        try {
            Config config = new ConfigBuilder(base).withMasterUrl(url).withNamespace(settings.namespace()).build();
            client = new KubernetesClientBuilder().withConfig(config)
                    .withHttpClientFactory(new JdkHttpClientFactory()).build();
        } catch (RuntimeException e) {
            return new EndpointResult(target, url, renewals, "cannot make a client for " + url + ": "
                    + rootMessage(e), "not created", null, false);
        }
        try (client) {
            var leases = client.leases().inNamespace(settings.namespace());
            Lease current;
            try {
                current = leases.resource(newLease()).create();
            } catch (RuntimeException e) {
                int code = e instanceof KubernetesClientException k ? k.getCode() : 0;
                String error = "create Lease " + leaseRef() + " at " + url + ": " + describe(e, target, url);
                if (code == 409) {
                    return new EndpointResult(target, url, renewals, error + ": another probe is running or a "
                            + "previous one left it behind; check its labels, then kubectl -n "
                            + settings.namespace() + " delete lease " + settings.leaseName(),
                            "not created (already existed, left alone)", null, false);
                }
                if ((code >= 400 && code < 500) || neverSent(e)) {
                    return new EndpointResult(target, url, renewals, error, "not created", null, false);
                }
                // a 5xx, a timeout or a dropped connection may come after the Lease was stored: clean up anyway
                return withCleanup(target, url, renewals, error, client);
            }
            String error = current == null || current.getMetadata() == null
                    ? "create Lease " + leaseRef() + " at " + url + ": the answer holds no Lease" : null;
            for (int i = 0; i < settings.renewals() && error == null; i++) {
                Lease renewed = new LeaseBuilder(current).editSpec().withRenewTime(now()).endSpec().build();
                String what = "renewal " + (i + 1) + "/" + settings.renewals() + " (PUT Lease " + leaseRef()
                        + ") at " + url + ": ";
                long start = System.nanoTime();
                try {
                    current = leases.resource(renewed).update();
                } catch (RuntimeException e) {
                    error = what + describe(e, target, url);
                    break;
                }
                renewals.add(Duration.ofNanos(System.nanoTime() - start));
                if (current == null || current.getMetadata() == null) {
                    error = what + "the answer holds no Lease";
                }
            }
            return withCleanup(target, url, renewals, error, client);
        }
    }

    private EndpointResult withCleanup(ApiserverTarget target, String url, List<Duration> renewals, String error,
                                       KubernetesClient client) {
        String viaEndpoint;
        try {
            boolean deleted = !client.leases().inNamespace(settings.namespace()).withName(settings.leaseName())
                    .delete().isEmpty();
            return new EndpointResult(target, url, renewals, error, deleted ? "deleted" : "nothing to delete", null,
                    false);
        } catch (RuntimeException e) {
            viaEndpoint = "DELETE Lease " + leaseRef() + " at " + url + ": " + describe(e, target, url);
        }
        try {
            boolean deleted = !fallback.leases().inNamespace(settings.namespace()).withName(settings.leaseName())
                    .delete().isEmpty();
            return new EndpointResult(target, url, renewals, error,
                    (deleted ? "deleted" : "nothing to delete") + " via kubeconfig server", viaEndpoint, false);
        } catch (RuntimeException e) {
            return new EndpointResult(target, url, renewals, error, "NOT DELETED",
                    "Lease " + leaseRef() + " may still exist (" + viaEndpoint + "; through the kubeconfig's "
                            + "server " + fallback.getMasterUrl() + ": " + describe(e, target, url)
                            + "); remove it with: kubectl -n " + settings.namespace()
                            + " delete lease " + settings.leaseName(), true);
        }
    }

    /** TLS refused or nothing listening: the request never reached an apiserver, so nothing was stored. */
    static boolean neverSent(Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SSLException || c instanceof CertificateException || c instanceof ConnectException
                    || c instanceof HttpConnectTimeoutException || c instanceof NoRouteToHostException) {
                return true;
            }
        }
        return false;
    }

    Lease newLease() {
        ZonedDateTime now = now();
        return new LeaseBuilder()
                .withNewMetadata()
                .withName(settings.leaseName())
                .withNamespace(settings.namespace())
                .addToLabels(ProbeSettings.MANAGED_BY_LABEL, ProbeSettings.MANAGED_BY)
                .addToAnnotations("nodegate.io/purpose",
                        "latency probe of each kube-apiserver (nodegate probe apiservers); safe to delete")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("nodegate-probe")
                .withLeaseDurationSeconds((int) Math.max(1, settings.renewDeadline().toSeconds() * 3 / 2))
                .withAcquireTime(now)
                .withRenewTime(now)
                .endSpec()
                .build();
    }

    private static ZonedDateTime now() {
        return ZonedDateTime.now(ZoneOffset.UTC);
    }

    private String leaseRef() {
        return settings.namespace() + "/" + settings.leaseName();
    }

    /** A reason a person can act on: HTTP status, TLS verification, unreachable, timeout. */
    static String describe(RuntimeException failure, ApiserverTarget target, String url) {
        if (failure instanceof KubernetesClientException e && e.getCode() > 0) {
            Status status = e.getStatus();
            String message = status != null && status.getMessage() != null ? status.getMessage() : e.getMessage();
            String hint = switch (e.getCode()) {
                case 401 -> " (credentials rejected)";
                case 403 -> " (RBAC: the probe needs create, update and delete on leases in that namespace)";
                default -> "";
            };
            return e.getCode() + (status != null && status.getReason() != null ? " " + status.getReason() : "")
                    + hint + ": " + message;
        }
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SSLException || c instanceof CertificateException) {
                return "TLS verification failed: " + c.getMessage() + ". The apiserver's certificate must chain to "
                        + "the kubeconfig's CA and carry " + target.address() + " as a subject alternative name "
                        + "(IP SAN); nodegate does not fall back to unverified TLS";
            }
            if (c instanceof ConnectException || c instanceof HttpConnectTimeoutException
                    || c instanceof NoRouteToHostException) {
                return "cannot reach " + url + ": " + c;
            }
            if (c instanceof HttpTimeoutException || c instanceof InterruptedIOException) {
                return "no answer within the request timeout (--request-timeout): " + c;
            }
        }
        return rootMessage(failure);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root + ")";
    }
}
