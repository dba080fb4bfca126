package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.Cluster;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.OAuthTokenProvider;
import io.fabric8.kubernetes.client.internal.CertUtils;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.fabric8.kubernetes.client.utils.Utils;
import io.nodegate.InputException;
import io.nodegate.source.InputFiles;
import io.nodegate.source.tls.PemTls;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which API server to talk to and how: fabric8's {@link Config}, resolved once per run by fabric8's rules, with a
 * thin layer on top where those rules differ from kubectl's (client-go's) or stay silent where kubectl stops.
 *
 * <p>From fabric8: the file list ({@link Config#getKubeconfigFilenames()}: {@code --kubeconfig FILE}, else the
 * {@code kubeconfig} system property or {@code $KUBECONFIG}, else {@code $HOME/.kube/config}; files that do not
 * exist are skipped), the merge of several files ({@link KubeConfigUtils#merge}: the first file to define a name
 * wins), everything copied from the chosen context, cluster and user into the {@link Config}, and in-cluster
 * configuration ({@link Config#autoConfigure}) when no file exists. The files are read by {@link KubeconfigYaml}
 * (fabric8's own reader costs 0.3-0.4 s of CPU per run; see there).
 *
 * <p>On top, each tested in {@code KubeconfigRulesTest}:
 * <ul>
 *   <li>the context is {@code --context}, else the first file's current-context, and it must exist (fabric8
 *       silently falls back from an unknown --context to the current-context, and from a current-context that names
 *       nothing to a later file's); its cluster and user must exist (fabric8 would talk to
 *       https://kubernetes.default.svc, or anonymously);</li>
 *   <li>refused, with the file and key: auth-provider, impersonation ({@code as}), a token together with a
 *       password, a CA together with insecure-skip-tls-verify, a certificate without its key, a proxy with a
 *       password or {@code https://};</li>
 *   <li>{@code tokenFile}, which fabric8 ignores, is read (again every minute);</li>
 *   <li>an exec plugin is run by {@link ExecPlugin} (deadline, KUBERNETES_EXEC_INFO, stderr kept apart), not by
 *       fabric8's runner, through the config's token provider, so fabric8's client uses its token too;</li>
 *   <li>the client key is handed to fabric8 as PKCS#8 with its algorithm: its {@code SSLUtils} cannot read an EC key
 *       in PKCS#8 or after openssl's "EC PARAMETERS" block;</li>
 *   <li>the proxy is chosen by {@link ProxySetting} (the cluster's proxy-url for every request, as client-go; fabric8
 *       drops an http:// proxy-url for an https:// server) and written back into the config.</li>
 * </ul>
 * Every error names the file and the key.
 */
public final class Kubeconfig {

    /** Stands in for the real token provider while fabric8 merges, so that fabric8 does not run an exec plugin. */
    private static final OAuthTokenProvider NOT_YET = () -> null;

    private Kubeconfig() {
    }

    /**
     * @param kubeconfig explicit file (--kubeconfig), or null for fabric8's list ($KUBECONFIG, ~/.kube/config) and
     *                   then in-cluster
     * @param context    --context, or null for current-context
     * @throws InputException naming the file and key when something is missing or unusable
     */
    public static ApiTarget resolve(Path kubeconfig, String context) {
        List<KubeconfigYaml.Loaded> files = new ArrayList<>();
        if (kubeconfig != null) {
            if (!Files.isRegularFile(kubeconfig)) {
                throw new InputException("kubeconfig " + kubeconfig + " does not exist or is not a file");
            }
            files.add(KubeconfigYaml.read(kubeconfig));
        } else {
            Collection<String> candidates = Config.getKubeconfigFilenames();
            for (String name : candidates) {
                if (!name.isBlank() && Files.isRegularFile(Path.of(name))) {
                    files.add(KubeconfigYaml.read(Path.of(name)));
                }
            }
            if (files.isEmpty()) {
                String where = String.join(File.pathSeparator, candidates);
                if (context != null) {
                    throw new InputException("--context " + context + " given but no kubeconfig found (" + where
                            + "); pass --kubeconfig FILE");
                }
                return inCluster(where);
            }
        }
        return select(files, context);
    }

    /** An entry of the merged view and the file that defined it. */
    private record Found<T>(T entry, Path file) {
    }

    /**
     * The merged view of the files, by client-go's and fabric8's rule: the first file to define a name wins (entries
     * without a body are skipped, as fabric8's merge skips them). Plain loops: this runs in every live command's
     * start-up, where each lambda and stream costs its own linkage.
     */
    private static final class Merged {
        final Map<String, Found<NamedContext>> contexts = new LinkedHashMap<>();
        final Map<String, Found<NamedCluster>> clusters = new LinkedHashMap<>();
        final Map<String, Found<NamedAuthInfo>> users = new LinkedHashMap<>();
        /** client-go: the first non-empty current-context, even when it names nothing (then: an error). */
        String currentContext;
        final io.fabric8.kubernetes.api.model.Config[] models;
        final String where;

        Merged(List<KubeconfigYaml.Loaded> files) {
            models = new io.fabric8.kubernetes.api.model.Config[files.size()];
            StringBuilder names = new StringBuilder();
            for (int i = 0; i < files.size(); i++) {
                KubeconfigYaml.Loaded f = files.get(i);
                io.fabric8.kubernetes.api.model.Config m = f.config();
                models[i] = m;
                names.append(i == 0 ? "" : File.pathSeparator).append(f.file());
                for (NamedContext e : m.getContexts()) {
                    if (e.getContext() != null) {
                        contexts.putIfAbsent(e.getName(), new Found<>(e, f.file()));
                    }
                }
                for (NamedCluster e : m.getClusters()) {
                    if (e.getCluster() != null) {
                        clusters.putIfAbsent(e.getName(), new Found<>(e, f.file()));
                    }
                }
                for (NamedAuthInfo e : m.getUsers()) {
                    if (e.getUser() != null) {
                        users.putIfAbsent(e.getName(), new Found<>(e, f.file()));
                    }
                }
                if (currentContext == null && !isBlank(m.getCurrentContext())) {
                    currentContext = m.getCurrentContext();
                }
            }
            where = names.toString();
        }

        String available() {
            return contexts.isEmpty() ? "(none)" : String.join(", ", new TreeSet<>(contexts.keySet()));
        }
    }

    /**
     * The context names of the kubeconfig kubectl would read (--kubeconfig, else $KUBECONFIG's files, else
     * ~/.kube/config), merged by the same rule as {@link #resolve}, for shell completion; none when no file exists.
     */
    public static List<String> contextNames(Path kubeconfig) {
        List<KubeconfigYaml.Loaded> files = new ArrayList<>();
        if (kubeconfig != null) {
            if (Files.isRegularFile(kubeconfig)) {
                files.add(KubeconfigYaml.read(kubeconfig));
            }
        } else {
            for (String name : Config.getKubeconfigFilenames()) {
                if (!name.isBlank() && Files.isRegularFile(Path.of(name))) {
                    files.add(KubeconfigYaml.read(Path.of(name)));
                }
            }
        }
        return files.isEmpty() ? List.of() : List.copyOf(new Merged(files).contexts.keySet());
    }

    private static ApiTarget select(List<KubeconfigYaml.Loaded> files, String context) {
        Merged merged = new Merged(files);
        String where = merged.where;
        String name = context;
        if (name == null) {
            name = merged.currentContext;
            if (name == null) {
                throw new InputException("kubeconfig " + where + " has no current-context; pass --context NAME "
                        + "(available contexts: " + merged.available() + ")");
            }
        }
        Found<NamedContext> ctx = merged.contexts.get(name);
        if (ctx == null) {
            throw new InputException("context '" + name + "' " + (context == null ? "(current-context) " : "")
                    + "not found in kubeconfig " + where + "; available contexts: " + merged.available());
        }
        String clusterName = ctx.entry().getContext().getCluster();
        if (clusterName == null) {
            throw new InputException("kubeconfig " + ctx.file() + ": context '" + name + "' names no cluster");
        }
        Found<NamedCluster> cluster = merged.clusters.get(clusterName);
        if (cluster == null) {
            throw new InputException("kubeconfig " + where + ": context '" + name + "' uses cluster '" + clusterName
                    + "', which no clusters entry defines");
        }
        String userName = ctx.entry().getContext().getUser();
        Found<NamedAuthInfo> user = null;
        if (userName != null) {
            user = merged.users.get(userName);
            if (user == null) {
                throw new InputException("kubeconfig " + where + ": context '" + name + "' uses user '" + userName
                        + "', which no users entry defines");
            }
        }

        String cw = "kubeconfig " + cluster.file() + ": cluster '" + clusterName + "'";
        Cluster c = cluster.entry().getCluster();
        String server = c.getServer();
        if (server == null) {
            throw new InputException(cw + " has no server");
        }
        if (!server.regionMatches(true, 0, "https://", 0, 8) && !server.regionMatches(true, 0, "http://", 0, 7)) {
            throw new InputException(cw + ": server '" + server + "' is not an http:// or https:// URL");
        }

        Config config = Config.empty();
        config.setOauthTokenProvider(NOT_YET);
        KubeConfigUtils.merge(config, name, merged.models);
        config.setOauthTokenProvider(null);

        String caWhere = c.getCertificateAuthorityData() != null ? cw + " certificate-authority-data"
                : c.getCertificateAuthority();
        String caPem = pem(config.getCaCertData(), config.getCaCertFile(), cw, "certificate-authority");
        if (config.isTrustCerts() && caPem != null) {
            // client-go refuses this combination too: which of the two did the user mean?
            throw new InputException(cw + " sets both insecure-skip-tls-verify and a certificate authority; "
                    + "remove one of them");
        }
        ProxySetting proxy = c.getProxyUrl() != null ? ProxySetting.parse(c.getProxyUrl(), cw + " proxy-url")
                : ProxySetting.fromEnvironment(server, System.getenv());
        proxy.applyTo(config);

        ExecPlugin exec = null;
        if (user != null) {
            String uw = "kubeconfig " + user.file() + ": user '" + userName + "'";
            AuthInfo u = user.entry().getUser();
            refuseWhatKubectlWouldNotDo(u, uw);
            clientCertificate(config, u, uw);
            if (u.getExec() != null) {
                exec = ExecPlugin.of(u.getExec(), uw + " exec");
            } else if (isBlank(u.getToken()) && u.getTokenFile() != null) {
                config.setOauthTokenProvider(new TokenFile(Path.of(u.getTokenFile()), uw + " tokenFile",
                        java.time.Clock.systemUTC()));
            }
        }
        return new ApiTarget(config, name, "kubeconfig " + cluster.file(), userName, caPem, caWhere, exec, proxy);
    }

    private static void refuseWhatKubectlWouldNotDo(AuthInfo u, String uw) {
        if (u.getAuthProvider() != null) {
            String provider = u.getAuthProvider().getName();
            throw new InputException(uw + " uses auth-provider" + (provider == null ? "" : " '" + provider + "'")
                    + ", which nodegate does not support (kubectl 1.26 removed the gcp and azure providers; an oidc "
                    + "provider's id-token expires and only fabric8's own client could refresh it); use an exec "
                    + "credential plugin instead (e.g. kubelogin for OIDC, gke-gcloud-auth-plugin, kubelogin for Azure)");
        }
        if (u.getAs() != null || u.getAsUid() != null || (u.getAsGroups() != null && !u.getAsGroups().isEmpty())) {
            throw new InputException(uw + " impersonates another user ('as'); nodegate does not impersonate: use a "
                    + "kubeconfig user that has the permissions itself");
        }
        if ((!isBlank(u.getToken()) || u.getTokenFile() != null) && (u.getUsername() != null || u.getPassword() != null)) {
            throw new InputException(uw + " sets both a token and username/password; client-go allows one of them");
        }
    }

    /**
     * The user's client certificate and key, read from data or file as fabric8 reads them, checked to belong together,
     * and put back into the config as data, the key as PKCS#8 with its algorithm (what fabric8's SSLUtils reads).
     */
    private static void clientCertificate(Config config, AuthInfo u, String uw) {
        String certPem = pem(config.getClientCertData(), config.getClientCertFile(), uw, "client-certificate");
        String keyPem = pem(config.getClientKeyData(), config.getClientKeyFile(), uw, "client-key");
        if ((certPem == null) != (keyPem == null)) {
            throw new InputException(uw + " has " + (certPem == null ? "a client key without a client certificate"
                    : "a client certificate without a client key") + " (client-certificate[-data] and "
                    + "client-key[-data] go together)");
        }
        if (certPem == null) {
            return;
        }
        String certWhere = u.getClientCertificateData() != null ? uw + " client-certificate-data"
                : u.getClientCertificate();
        ClientKey key = clientKey(certPem, keyPem, certWhere);
        config.setClientCertData(ApiTarget.base64(certPem));
        config.setClientCertFile(null);
        config.setClientKeyData(key.pkcs8Base64());
        config.setClientKeyFile(null);
        config.setClientKeyAlgo(key.algorithm());
    }

    /** A client key in the form fabric8's SSLUtils reads: base64 of a PKCS#8 PEM, and the key's algorithm. */
    record ClientKey(String pkcs8Base64, String algorithm) {
    }

    /**
     * Reads a client key in any of the forms kubeconfigs carry (PKCS#8, PKCS#1 RSA, SEC1 EC, after an "EC PARAMETERS"
     * block or not) and checks that it belongs to the certificate: a key that does not fails the TLS handshake with
     * an unhelpful alert, so it is a kubeconfig error, said now.
     */
    static ClientKey clientKey(String certPem, String keyPem, String certWhere) {
        List<X509Certificate> chain = PemTls.certificates(certPem, certWhere);
        PrivateKey key = PemTls.privateKey(keyPem, certWhere + " (client key)");
        PemTls.requireMatch(key, chain.get(0), certWhere + " (client key)", certWhere);
        String pkcs8 = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        return new ClientKey(ApiTarget.base64(pkcs8), key.getAlgorithm());
    }

    // ---- in-cluster ---------------------------------------------------------------------------------------------

    private static ApiTarget inCluster(String where) {
        String host = Utils.getSystemPropertyOrEnvVar(Config.KUBERNETES_SERVICE_HOST_PROPERTY);
        String port = Utils.getSystemPropertyOrEnvVar(Config.KUBERNETES_SERVICE_PORT_PROPERTY);
        if (host == null || host.isBlank()) {
            throw new InputException("no kubeconfig found (" + where + ") and not running inside a cluster; "
                    + "pass --kubeconfig FILE, set $KUBECONFIG, or read dumps with -f PATH");
        }
        if (port == null || port.isBlank()) {
            throw new InputException("in-cluster: KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is not");
        }
        // fabric8's in-cluster configuration: the service variables, the service account's token, ca.crt and
        // namespace; its token is read again every minute (ApiTarget#authorization)
        Config config = Config.autoConfigure(null);
        if (isBlank(config.getAutoOAuthToken())) {
            String token = Utils.getSystemPropertyOrEnvVar(Config.KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN_FILE_SYSTEM_PROPERTY,
                    Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH);
            throw new InputException("in-cluster: the service account token " + token + " does not exist or cannot "
                    + "be read (is automountServiceAccountToken off for this Pod?)");
        }
        String caPem = pem(config.getCaCertData(), config.getCaCertFile(), "in-cluster", "service account ca.crt");
        ProxySetting proxy = ProxySetting.fromEnvironment(config.getMasterUrl(), System.getenv());
        proxy.applyTo(config);
        return new ApiTarget(config, null, "in-cluster", null, caPem, config.getCaCertFile(), null, proxy);
    }

    // ---- small helpers ------------------------------------------------------------------------------------------

    /**
     * The PEM text of a *-data or file field, read as fabric8 reads it; null when neither is set. {@code where} and
     * {@code key} name it in messages (joined only then: this runs in every live command's start-up).
     */
    static String pem(String data, String file, String where, String key) {
        if (!isBlank(data)) {
            try {
                return new String(CertUtils.getInputStreamFromDataOrFile(data, null).readAllBytes(),
                        StandardCharsets.ISO_8859_1);
            } catch (IOException e) {
                throw new InputException(where + " " + key + "-data: " + e.getMessage());
            }
        }
        if (isBlank(file)) {
            return null;
        }
        // the file as one bounded read (a FIFO or a device named here cannot hold the command), as every input file
        Path p = Path.of(file);
        if (!Files.exists(p)) {
            throw new InputException(where + " " + key + ": file " + file + " not found");
        }
        return new String(InputFiles.read(p, where + " " + key + ": file", InputFiles.SMALL),
                StandardCharsets.ISO_8859_1);
    }

    /** The CA of a fabric8 config built elsewhere (a client handed in), or null. */
    static String caPem(Config config, String origin) {
        return pem(config.getCaCertData(), config.getCaCertFile(), origin, "certificate authority");
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    /**
     * A kubeconfig user's tokenFile (fabric8's merge ignores the key): read on first use and again a minute later,
     * as client-go's cached file token source does, so a rotated token is picked up.
     */
    static final class TokenFile implements OAuthTokenProvider {
        private final Path file;
        private final String where;
        private final java.time.Clock clock;
        private volatile String token;
        private volatile Instant readAt = Instant.MIN;

        TokenFile(Path file, String where, java.time.Clock clock) {
            this.file = file;
            this.where = where;
            this.clock = clock;
        }

        @Override
        public synchronized String getToken() {
            Instant now = clock.instant();
            if (token == null || now.isAfter(readAt.plusSeconds(60))) {
                token = InputFiles.readString(file, where, InputFiles.SMALL).strip();
                readAt = now;
            }
            return token;
        }
    }
}
