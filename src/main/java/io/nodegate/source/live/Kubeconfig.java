package io.nodegate.source.live;

import io.nodegate.InputException;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Which API server to talk to and how, by kubectl's (client-go's) loading rules, read with snakeyaml-engine rather
 * than fabric8's {@code Config} (whose start-up alone cost 0.2-0.4 s of every live command):
 * <ol>
 *   <li>{@code --kubeconfig FILE}: that file alone; it must exist.</li>
 *   <li>else {@code $KUBECONFIG}: a list of files (':' separated; ';' on Windows); files that do not exist are
 *       skipped; the files are merged with the <b>first</b> file to define a cluster, user or context name winning,
 *       and the first non-empty current-context winning (client-go's rule).</li>
 *   <li>else {@code ~/.kube/config} when it exists.</li>
 *   <li>else in-cluster: {@code KUBERNETES_SERVICE_HOST}/{@code _PORT}, the service account's token and ca.crt.</li>
 * </ol>
 * {@code --context} picks the context, else current-context. Relative file paths in a kubeconfig
 * (certificate-authority, client-certificate, client-key, tokenFile, an exec command with a '/') are relative to
 * the file that names them. Supported: server, certificate-authority(-data), insecure-skip-tls-verify,
 * tls-server-name, proxy-url; token, tokenFile, username/password, client-certificate(-data)/client-key(-data),
 * exec plugins. Refused with a message saying what to do instead: auth-provider (removed from kubectl 1.26),
 * impersonation ({@code as}). Every error names the file and the key.
 */
public final class Kubeconfig {

    /** The service-account files a Pod gets; fabric8's system properties override them (as the watch's tests do). */
    static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

    /**
     * What the loading rules look at besides the flags: environment variables, the home directory and the
     * service-account files. {@link #system()} is the real process; tests pass their own.
     */
    public record LoadingRules(Map<String, String> env, Path home, Path serviceAccountToken, Path serviceAccountCa) {
        public static LoadingRules system() {
            String token = System.getProperty("kubernetes.auth.serviceAccount.token");
            String ca = System.getProperty("kubernetes.certs.ca.file");
            return new LoadingRules(System.getenv(), Path.of(System.getProperty("user.home")),
                    token != null ? Path.of(token) : SERVICE_ACCOUNT.resolve("token"),
                    ca != null ? Path.of(ca) : SERVICE_ACCOUNT.resolve("ca.crt"));
        }
    }

    private Kubeconfig() {
    }

    /** One entry of a kubeconfig list (cluster, user or context), with the file that defined it. */
    private record Entry(Map<String, Object> body, Path file) {
    }

    /** The merged view of one or more files. */
    private static final class Merged {
        final Map<String, Entry> clusters = new LinkedHashMap<>();
        final Map<String, Entry> users = new LinkedHashMap<>();
        final Map<String, Entry> contexts = new LinkedHashMap<>();
        String currentContext;
        final List<Path> files = new ArrayList<>();

        String where() {
            return files.size() == 1 ? files.get(0).toString()
                    : String.join(File.pathSeparator, files.stream().map(Path::toString).toList());
        }
    }

    public static ApiTarget resolve(Path kubeconfig, String context) {
        return resolve(kubeconfig, context, LoadingRules.system());
    }

    /**
     * @param kubeconfig explicit file (--kubeconfig), or null for $KUBECONFIG / ~/.kube/config / in-cluster
     * @param context    --context, or null for current-context
     * @throws InputException naming the file and key when something is missing or unusable
     */
    public static ApiTarget resolve(Path kubeconfig, String context, LoadingRules rules) {
        Merged merged = new Merged();
        if (kubeconfig != null) {
            if (!Files.isRegularFile(kubeconfig)) {
                throw new InputException("kubeconfig " + kubeconfig + " does not exist or is not a file");
            }
            load(kubeconfig, merged);
        } else {
            List<Path> candidates = new ArrayList<>();
            String list = rules.env().get("KUBECONFIG");
            if (list != null && !list.isBlank()) {
                for (String f : list.split(java.util.regex.Pattern.quote(File.pathSeparator))) {
                    if (!f.isBlank()) {
                        candidates.add(Path.of(f.trim()));
                    }
                }
            } else {
                candidates.add(rules.home().resolve(".kube").resolve("config"));
            }
            for (Path f : candidates) {
                if (Files.isRegularFile(f)) {
                    load(f, merged);
                }
            }
            if (merged.files.isEmpty()) {
                String where = candidates.isEmpty() ? "~/.kube/config"
                        : String.join(File.pathSeparator, candidates.stream().map(Path::toString).toList());
                if (context != null) {
                    throw new InputException("--context " + context + " given but no kubeconfig found (" + where
                            + "); pass --kubeconfig FILE");
                }
                return inCluster(rules, where);
            }
        }
        return select(merged, context, rules);
    }

    // ---- reading files ------------------------------------------------------------------------------------------

    private static void load(Path file, Merged merged) {
        String text = io.nodegate.source.InputFiles.readString(file, "kubeconfig", io.nodegate.source.InputFiles.SMALL);
        Object doc;
        try {
            doc = text.isBlank() ? Map.of() : new Load(LoadSettings.builder().setAllowDuplicateKeys(true)
                    .build()).loadFromString(text);
        } catch (RuntimeException e) {
            // line and column only: the parser's excerpt of the line would print a token (ParseErrors)
            throw new InputException("cannot read kubeconfig " + file + ": not valid YAML"
                    + io.nodegate.source.ParseErrors.at(e) + " (" + io.nodegate.source.ParseErrors.problem(e) + ")");
        }
        if (doc == null) {
            doc = Map.of();
        }
        if (!(doc instanceof Map<?, ?> root)) {
            throw new InputException("cannot read kubeconfig " + file + ": the top level is not a mapping");
        }
        merged.files.add(file);
        collect(root, "clusters", "cluster", file, merged.clusters);
        collect(root, "users", "user", file, merged.users);
        collect(root, "contexts", "context", file, merged.contexts);
        Object current = root.get("current-context");
        if (merged.currentContext == null && current != null && !String.valueOf(current).isBlank()) {
            merged.currentContext = String.valueOf(current);
        }
    }

    @SuppressWarnings("unchecked")
    private static void collect(Map<?, ?> root, String listKey, String bodyKey, Path file, Map<String, Entry> into) {
        Object list = root.get(listKey);
        if (list == null) {
            return;
        }
        if (!(list instanceof List<?> items)) {
            throw new InputException("kubeconfig " + file + ": '" + listKey + "' is not a list");
        }
        for (Object item : items) {
            if (!(item instanceof Map<?, ?> m) || m.get("name") == null) {
                throw new InputException("kubeconfig " + file + ": an entry of '" + listKey + "' has no name");
            }
            Object body = m.get(bodyKey);
            if (body != null && !(body instanceof Map<?, ?>)) {
                throw new InputException("kubeconfig " + file + ": " + listKey + "[" + m.get("name") + "]." + bodyKey
                        + " is not a mapping");
            }
            // client-go: the first file to set a name wins
            into.putIfAbsent(String.valueOf(m.get("name")),
                    new Entry(body == null ? Map.of() : (Map<String, Object>) body, file));
        }
    }

    // ---- choosing the context, cluster and user -----------------------------------------------------------------

    private static ApiTarget select(Merged merged, String context, LoadingRules rules) {
        String where = merged.where();
        List<String> names = new ArrayList<>(new TreeSet<>(merged.contexts.keySet()));
        String name = context;
        if (name == null) {
            if (merged.currentContext == null) {
                throw new InputException("kubeconfig " + where + " has no current-context; pass --context NAME "
                        + "(available contexts: " + (names.isEmpty() ? "(none)" : String.join(", ", names)) + ")");
            }
            name = merged.currentContext;
        }
        Entry ctx = merged.contexts.get(name);
        if (ctx == null) {
            throw new InputException("context '" + name + "' " + (context == null ? "(current-context) " : "")
                    + "not found in kubeconfig " + where + "; available contexts: "
                    + (names.isEmpty() ? "(none)" : String.join(", ", names)));
        }
        String clusterName = text(ctx.body(), "cluster");
        if (clusterName == null) {
            throw new InputException("kubeconfig " + ctx.file() + ": context '" + name + "' names no cluster");
        }
        Entry cluster = merged.clusters.get(clusterName);
        if (cluster == null) {
            throw new InputException("kubeconfig " + where + ": context '" + name + "' uses cluster '" + clusterName
                    + "', which no clusters entry defines");
        }
        String userName = text(ctx.body(), "user");
        Entry user = null;
        if (userName != null) {
            user = merged.users.get(userName);
            if (user == null) {
                throw new InputException("kubeconfig " + where + ": context '" + name + "' uses user '" + userName
                        + "', which no users entry defines");
            }
        }
        return target(name, text(ctx.body(), "namespace"), clusterName, cluster, userName, user, rules);
    }

    private static ApiTarget target(String contextName, String namespace, String clusterName, Entry cluster,
                                    String userName, Entry user, LoadingRules rules) {
        Map<String, Object> c = cluster.body();
        String cw = "kubeconfig " + cluster.file() + ": cluster '" + clusterName + "'";
        String server = text(c, "server");
        if (server == null) {
            throw new InputException(cw + " has no server");
        }
        if (!server.regionMatches(true, 0, "https://", 0, 8) && !server.regionMatches(true, 0, "http://", 0, 7)) {
            throw new InputException(cw + ": server '" + server + "' is not an http:// or https:// URL");
        }
        boolean insecure = bool(c, "insecure-skip-tls-verify", cw);
        String caPem = null;
        String caWhere = null;
        String caData = text(c, "certificate-authority-data");
        String caFile = text(c, "certificate-authority");
        if (caData != null) {
            caPem = decode(caData, cw + " certificate-authority-data");
            caWhere = cw + " certificate-authority-data";
        } else if (caFile != null) {
            Path p = relative(cluster.file(), caFile);
            caPem = readFile(p, cw + " certificate-authority");
            caWhere = p.toString();
        }
        if (insecure && caPem != null) {
            // client-go refuses this combination too: which of the two did the user mean?
            throw new InputException(cw + " sets both insecure-skip-tls-verify and a certificate authority; "
                    + "remove one of them");
        }
        String proxyUrl = text(c, "proxy-url");
        ProxySetting proxy = proxyUrl != null ? ProxySetting.parse(proxyUrl, cw + " proxy-url")
                : ProxySetting.fromEnvironment(server, rules.env());

        Map<String, Object> u = user == null ? Map.of() : user.body();
        String uw = user == null ? "" : "kubeconfig " + user.file() + ": user '" + userName + "'";
        if (u.get("auth-provider") != null) {
            Object provider = u.get("auth-provider") instanceof Map<?, ?> ap ? ap.get("name") : null;
            throw new InputException(uw + " uses auth-provider" + (provider == null ? "" : " '" + provider + "'")
                    + ", which kubectl removed in 1.26 and nodegate does not support; use an exec credential plugin "
                    + "instead (e.g. kubelogin for OIDC, gke-gcloud-auth-plugin, kubelogin for Azure)");
        }
        if (u.get("as") != null || u.get("as-groups") != null || u.get("as-uid") != null) {
            throw new InputException(uw + " impersonates another user ('as'); nodegate does not impersonate: use a "
                    + "kubeconfig user that has the permissions itself");
        }
        String token = text(u, "token");
        String tokenFile = text(u, "tokenFile");
        String username = text(u, "username");
        String password = text(u, "password");
        if ((token != null || tokenFile != null) && (username != null || password != null)) {
            throw new InputException(uw + " sets both a token and username/password; client-go allows one of them");
        }
        String certPem = null;
        String keyPem = null;
        String certWhere = null;
        String certData = text(u, "client-certificate-data");
        String certFile = text(u, "client-certificate");
        String keyData = text(u, "client-key-data");
        String keyFile = text(u, "client-key");
        if (certData != null) {
            certPem = decode(certData, uw + " client-certificate-data");
            certWhere = uw + " client-certificate-data";
        } else if (certFile != null) {
            Path p = relative(user.file(), certFile);
            certPem = readFile(p, uw + " client-certificate");
            certWhere = p.toString();
        }
        if (keyData != null) {
            keyPem = decode(keyData, uw + " client-key-data");
        } else if (keyFile != null) {
            keyPem = readFile(relative(user.file(), keyFile), uw + " client-key");
        }
        if ((certPem == null) != (keyPem == null)) {
            throw new InputException(uw + " has " + (certPem == null ? "a client key without a client certificate"
                    : "a client certificate without a client key") + " (client-certificate[-data] and "
                    + "client-key[-data] go together)");
        }
        ExecPlugin exec = u.get("exec") == null ? null : exec(u.get("exec"), user.file(), uw);
        ApiTarget.Credentials creds = new ApiTarget.Credentials(token, username, password, certPem, keyPem,
                certWhere, null);
        ApiTarget target = new ApiTarget(server, contextName, "kubeconfig " + cluster.file(), caPem, caWhere,
                insecure, text(c, "tls-server-name"), creds, tokenFile == null ? null : relative(user.file(), tokenFile),
                exec, proxy, namespace).withUserName(userName);
        if (certPem != null) {
            target.sslContext(); // a key that does not match its certificate is a kubeconfig error: say so now
        }
        return target;
    }

    private static ExecPlugin exec(Object raw, Path file, String uw) {
        if (!(raw instanceof Map<?, ?> e)) {
            throw new InputException(uw + ": exec is not a mapping");
        }
        String ew = uw + " exec";
        String command = e.get("command") == null ? null : String.valueOf(e.get("command"));
        if (command == null || command.isBlank()) {
            throw new InputException(ew + " has no command");
        }
        String apiVersion = e.get("apiVersion") == null ? null : String.valueOf(e.get("apiVersion"));
        if (apiVersion == null || !ExecPlugin.VERSIONS.contains(apiVersion)) {
            throw new InputException(ew + " has apiVersion '" + apiVersion + "'; nodegate runs plugins of "
                    + String.join(" or ", ExecPlugin.VERSIONS) + " (v1alpha1 was removed from kubectl in 1.24)");
        }
        List<String> args = new ArrayList<>();
        if (e.get("args") instanceof List<?> list) {
            list.forEach(a -> args.add(String.valueOf(a)));
        } else if (e.get("args") != null) {
            throw new InputException(ew + ": args is not a list");
        }
        Map<String, String> env = new LinkedHashMap<>();
        if (e.get("env") instanceof List<?> list) {
            for (Object o : list) {
                if (!(o instanceof Map<?, ?> kv) || kv.get("name") == null) {
                    throw new InputException(ew + ": an env entry has no name");
                }
                env.put(String.valueOf(kv.get("name")), kv.get("value") == null ? "" : String.valueOf(kv.get("value")));
            }
        } else if (e.get("env") != null) {
            throw new InputException(ew + ": env is not a list of {name, value}");
        }
        String mode = e.get("interactiveMode") == null ? "IfAvailable" : String.valueOf(e.get("interactiveMode"));
        if (!List.of("Never", "IfAvailable", "Always").contains(mode)) {
            throw new InputException(ew + " has interactiveMode '" + mode + "'; expected Never, IfAvailable or Always");
        }
        boolean clusterInfo = Boolean.TRUE.equals(e.get("provideClusterInfo"))
                || "true".equals(String.valueOf(e.get("provideClusterInfo")));
        return new ExecPlugin(apiVersion, command, List.copyOf(args), Map.copyOf(env),
                e.get("installHint") == null ? null : String.valueOf(e.get("installHint")), clusterInfo, mode,
                file.toAbsolutePath().getParent(), ew);
    }

    // ---- in-cluster ---------------------------------------------------------------------------------------------

    private static ApiTarget inCluster(LoadingRules rules, String where) {
        String host = rules.env().get("KUBERNETES_SERVICE_HOST");
        String port = rules.env().get("KUBERNETES_SERVICE_PORT");
        if (host == null || host.isBlank()) {
            throw new InputException("no kubeconfig found (" + where + ") and not running inside a cluster; "
                    + "pass --kubeconfig FILE, set $KUBECONFIG, or read dumps with -f PATH");
        }
        if (port == null || port.isBlank()) {
            throw new InputException("in-cluster: KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is not");
        }
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        String server = "https://" + h + ":" + port.trim();
        Path token = rules.serviceAccountToken();
        if (!Files.isRegularFile(token)) {
            throw new InputException("in-cluster: the service account token " + token + " does not exist (is "
                    + "automountServiceAccountToken off for this Pod?)");
        }
        Path ca = rules.serviceAccountCa();
        String caPem = Files.isRegularFile(ca) ? readFile(ca, "in-cluster service account ca.crt") : null;
        // the token file is re-read when it changes (kubelet rotates projected tokens): see ApiTarget#credentials
        return new ApiTarget(server, null, "in-cluster", caPem, ca.toString(), false, null,
                new ApiTarget.Credentials(null, null, null, null, null, null, null), token, null,
                ProxySetting.fromEnvironment(server, rules.env()), null);
    }

    // ---- small helpers ------------------------------------------------------------------------------------------

    private static String text(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            return null;
        }
        String s = String.valueOf(v);
        return s.isEmpty() ? null : s;
    }

    private static boolean bool(Map<String, Object> m, String key, String where) {
        Object v = m.get(key);
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        String s = String.valueOf(v);
        if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(s);
        }
        throw new InputException(where + ": " + key + " is '" + s + "', not true or false");
    }

    private static String decode(String base64, String where) {
        try {
            return new String(Base64.getMimeDecoder().decode(base64.trim()), StandardCharsets.ISO_8859_1);
        } catch (IllegalArgumentException e) {
            throw new InputException(where + " is not valid base64");
        }
    }

    private static Path relative(Path kubeconfig, String file) {
        Path p = Path.of(file.startsWith("~/") ? System.getProperty("user.home") + file.substring(1) : file);
        if (p.isAbsolute()) {
            return p;
        }
        Path dir = kubeconfig.toAbsolutePath().getParent();
        return dir == null ? p : dir.resolve(p).normalize();
    }

    private static String readFile(Path p, String where) {
        if (!Files.exists(p)) {
            throw new InputException(where + ": file " + p + " not found");
        }
        return new String(io.nodegate.source.InputFiles.read(p, where + ": file", io.nodegate.source.InputFiles.SMALL),
                StandardCharsets.ISO_8859_1);
    }

    static String requireNonBlank(String s, String what) {
        return Objects.requireNonNull(s, what);
    }
}
