package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.AuthProviderConfig;
import io.fabric8.kubernetes.api.model.Cluster;
import io.fabric8.kubernetes.api.model.Config;
import io.fabric8.kubernetes.api.model.Context;
import io.fabric8.kubernetes.api.model.ExecConfig;
import io.fabric8.kubernetes.api.model.ExecEnvVar;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.nodegate.InputException;
import io.nodegate.source.InputFiles;
import io.nodegate.source.json.ParseErrors;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One kubeconfig file read into fabric8's kubeconfig model ({@code io.fabric8.kubernetes.api.model.Config}), which
 * fabric8's {@code KubeConfigUtils.merge} then resolves ({@link Kubeconfig}).
 *
 * <p>Why not fabric8's own {@code KubeConfigUtils.parseConfig}: it reads the file through its Jackson mapper, and
 * setting that mapper up (databind, bean introspection of the model, a scan of every model class on the class
 * path) cost 0.28-0.41 s of CPU in a fresh JVM, more than half of what a whole 7-node live audit costs
 * (bench/RESULTS.md, "One kubeconfig stack"). This class copies the YAML, field by field and with no meaning of
 * its own, into the same model; {@code KubeconfigYamlTest} checks that the result
 * resolves exactly as fabric8's own parse of the same files does.
 *
 * <p>Two things differ on purpose: relative paths (certificate-authority, client-certificate, client-key,
 * tokenFile, and an exec command with a '/') are made absolute here, relative to this file, as client-go does;
 * and a file that is not a kubeconfig is refused naming the file and the key, where fabric8 says only "not a
 * parseable Kubernetes Config".
 */
final class KubeconfigYaml {

    private KubeconfigYaml() {
    }

    /** One file and what it holds. */
    record Loaded(Path file, Config config) {
    }

    static Loaded read(Path file) {
        String text = InputFiles.readString(file, "kubeconfig", InputFiles.SMALL);
        Object doc;
        try {
            doc = text.isBlank() ? null : new Load(LoadSettings.builder().setAllowDuplicateKeys(true).build())
                    .loadFromString(text);
        } catch (RuntimeException e) {
            // line and column only: the parser's excerpt of the line would print a token (ParseErrors)
            throw new InputException("cannot read kubeconfig " + file + ": not valid YAML" + ParseErrors.at(e) + " ("
                    + ParseErrors.problem(e) + ")");
        }
        if (doc == null) {
            doc = Map.of();
        }
        if (!(doc instanceof Map<?, ?> root)) {
            throw new InputException("cannot read kubeconfig " + file + ": the top level is not a mapping");
        }
        List<NamedCluster> clusters = new ArrayList<>();
        for (Map.Entry<String, Map<?, ?>> e : entries(root, "clusters", "cluster", file).entrySet()) {
            clusters.add(new NamedCluster(cluster(e.getValue(), file, e.getKey()), e.getKey()));
        }
        List<NamedAuthInfo> users = new ArrayList<>();
        for (Map.Entry<String, Map<?, ?>> e : entries(root, "users", "user", file).entrySet()) {
            users.add(new NamedAuthInfo(e.getKey(), user(e.getValue(), file, e.getKey())));
        }
        List<NamedContext> contexts = new ArrayList<>();
        for (Map.Entry<String, Map<?, ?>> e : entries(root, "contexts", "context", file).entrySet()) {
            contexts.add(new NamedContext(context(e.getValue()), e.getKey()));
        }
        // the model's setters, not its builders: a builder deep-copies every entry through a builder class of its
        // own (tens of classes to load on every run for nothing)
        Config config = new Config();
        config.setApiVersion(text(root, "apiVersion"));
        config.setKind(text(root, "kind"));
        config.setClusters(clusters);
        config.setUsers(users);
        config.setContexts(contexts);
        config.setCurrentContext(text(root, "current-context"));
        return new Loaded(file, config);
    }

    /**
     * The named entries of one list, in file order; a name given twice in one file keeps its first entry, as
     * client-go does. The value is null for an entry without a body (fabric8's merge skips those).
     */
    private static Map<String, Map<?, ?>> entries(Map<?, ?> root, String listKey, String bodyKey, Path file) {
        Object list = root.get(listKey);
        Map<String, Map<?, ?>> out = new LinkedHashMap<>();
        if (list == null) {
            return out;
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
                throw new InputException("kubeconfig " + file + ": " + listKey + "[" + m.get("name") + "]."
                        + bodyKey + " is not a mapping");
            }
            out.putIfAbsent(String.valueOf(m.get("name")), (Map<?, ?>) body);
        }
        return out;
    }

    private static Context context(Map<?, ?> c) {
        if (c == null) {
            return null;
        }
        Context context = new Context();
        context.setCluster(text(c, "cluster"));
        context.setUser(text(c, "user"));
        context.setNamespace(text(c, "namespace"));
        return context;
    }

    /** "kubeconfig FILE: cluster 'NAME'", for messages (built only for one: this runs in every live start-up). */
    private static String where(Path file, String kind, String name) {
        return "kubeconfig " + file + ": " + kind + " '" + name + "'";
    }

    private static Cluster cluster(Map<?, ?> c, Path file, String name) {
        if (c == null) {
            return null;
        }
        Cluster cluster = new Cluster();
        cluster.setServer(text(c, "server"));
        cluster.setTlsServerName(text(c, "tls-server-name"));
        cluster.setInsecureSkipTlsVerify(bool(c, "insecure-skip-tls-verify", file, "cluster", name));
        cluster.setCertificateAuthority(path(file, text(c, "certificate-authority")));
        cluster.setCertificateAuthorityData(text(c, "certificate-authority-data"));
        cluster.setProxyUrl(text(c, "proxy-url"));
        cluster.setDisableCompression(bool(c, "disable-compression", file, "cluster", name));
        return cluster;
    }

    private static AuthInfo user(Map<?, ?> u, Path file, String name) {
        if (u == null) {
            return null;
        }
        AuthInfo user = new AuthInfo();
        user.setToken(text(u, "token"));
        user.setTokenFile(path(file, text(u, "tokenFile")));
        user.setUsername(text(u, "username"));
        user.setPassword(text(u, "password"));
        user.setClientCertificate(path(file, text(u, "client-certificate")));
        user.setClientCertificateData(text(u, "client-certificate-data"));
        user.setClientKey(path(file, text(u, "client-key")));
        user.setClientKeyData(text(u, "client-key-data"));
        user.setAs(text(u, "as"));
        user.setAsUid(text(u, "as-uid"));
        if (u.get("as-groups") instanceof List<?> groups) {
            List<String> names = new ArrayList<>(groups.size());
            for (Object g : groups) {
                names.add(String.valueOf(g));
            }
            user.setAsGroups(names);
        }
        if (u.get("auth-provider") instanceof Map<?, ?> ap) {
            Map<String, String> config = new LinkedHashMap<>();
            if (ap.get("config") instanceof Map<?, ?> m) {
                m.forEach((k, v) -> config.put(String.valueOf(k), v == null ? null : String.valueOf(v)));
            }
            user.setAuthProvider(new AuthProviderConfig(config, text(ap, "name")));
        } else if (u.get("auth-provider") != null) {
            throw new InputException(where(file, "user", name) + ": auth-provider is not a mapping");
        }
        if (u.get("exec") != null) {
            user.setExec(exec(u.get("exec"), file, name));
        }
        return user;
    }

    private static ExecConfig exec(Object raw, Path file, String user) {
        if (!(raw instanceof Map<?, ?> e)) {
            String where = where(file, "user", user) + " exec";
            throw new InputException(where + " is not a mapping");
        }
        List<String> args = null;
        if (e.get("args") instanceof List<?> list) {
            args = new ArrayList<>(list.size());
            for (Object a : list) {
                args.add(String.valueOf(a));
            }
        } else if (e.get("args") != null) {
            throw new InputException(where(file, "user", user) + " exec: args is not a list");
        }
        List<ExecEnvVar> env = null;
        if (e.get("env") instanceof List<?> list) {
            env = new ArrayList<>();
            for (Object o : list) {
                if (!(o instanceof Map<?, ?> kv) || kv.get("name") == null) {
                    throw new InputException(where(file, "user", user) + " exec: an env entry has no name");
                }
                env.add(new ExecEnvVar(String.valueOf(kv.get("name")),
                        kv.get("value") == null ? null : String.valueOf(kv.get("value"))));
            }
        } else if (e.get("env") != null) {
            throw new InputException(where(file, "user", user) + " exec: env is not a list of {name, value}");
        }
        String command = text(e, "command");
        // kubectl: a command with a path separator is relative to the kubeconfig's directory; a bare name is
        // looked up on PATH
        if (command != null && command.contains("/")) {
            command = path(file, command);
        }
        ExecConfig exec = new ExecConfig();
        exec.setApiVersion(text(e, "apiVersion"));
        exec.setCommand(command);
        exec.setArgs(args);
        exec.setEnv(env);
        exec.setInstallHint(text(e, "installHint"));
        exec.setInteractiveMode(text(e, "interactiveMode"));
        exec.setProvideClusterInfo(bool(e, "provideClusterInfo", file, "user", user));
        return exec;
    }

    // ---- small helpers ------------------------------------------------------------------------------------------

    private static String text(Map<?, ?> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            return null;
        }
        String s = String.valueOf(v);
        return s.isEmpty() ? null : s;
    }

    private static Boolean bool(Map<?, ?> m, String key, Path file, String kind, String name) {
        Object v = m.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        String s = String.valueOf(v);
        if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(s);
        }
        throw new InputException(where(file, kind, name) + ": " + key + " is '" + s + "', not true or false");
    }

    /** client-go: a relative path is relative to the file that names it ({@code ~/} is the home directory). */
    private static String path(Path kubeconfig, String file) {
        if (file == null) {
            return null;
        }
        Path p = Path.of(file.startsWith("~/") ? System.getProperty("user.home") + file.substring(1) : file);
        if (p.isAbsolute()) {
            return p.toString();
        }
        Path dir = kubeconfig.toAbsolutePath().getParent();
        return (dir == null ? p : dir.resolve(p).normalize()).toString();
    }
}
