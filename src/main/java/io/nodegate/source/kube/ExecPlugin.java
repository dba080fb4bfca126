package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.ExecConfig;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A kubeconfig {@code user.exec} credential plugin (client.authentication.k8s.io v1 and v1beta1), run as kubectl
 * runs it: the command with its args, the kubeconfig's env on top of ours, {@code KUBERNETES_EXEC_INFO} describing
 * the request (and the cluster, with provideClusterInfo), no terminal. Its stdout must be an ExecCredential of the
 * same apiVersion carrying {@code status.token} or {@code status.clientCertificateData}+{@code clientKeyData}.
 * Rancher's kubeconfigs ({@code kubectl-rancher-token}?), EKS ({@code aws eks get-token}) and most SSO set-ups use
 * these.
 *
 * <p>Failures: a command that cannot be started is an input error (exit 2) that names it and repeats the
 * kubeconfig's installHint; a plugin that fails, hangs past {@link #TIMEOUT} or prints no usable credential is a
 * collection failure (exit 3) naming the command, with the end of its stderr.
 *
 * <p>fabric8's {@code Config} says which plugin (the user's exec entry, merged by {@code KubeConfigUtils}); nodegate
 * runs it, because fabric8's runner ({@code KubeConfigUtils.getExecCredentialFromExecConfig}, 8.0.0) runs it while
 * the kubeconfig is read, waits for it without a deadline, reads its stderr into the answer (a plugin's "opening a
 * browser" line makes the answer unparsable), sets no KUBERNETES_EXEC_INFO (plugins built on client-go's exec
 * helper refuse to run without it), passes the command through {@code sh -c} as one string, ignores
 * expirationTimestamp and interactiveMode, and on any failure only logs a warning and carries on without
 * credentials, so the user sees a 401 instead of the plugin's error. {@code KubeconfigRulesTest} shows these.
 * The token reaches fabric8's client through the config's token provider ({@link ApiTarget}).
 */
final class ExecPlugin {

    /** A plugin that has not answered in this time is stuck (waiting for a browser login nobody will finish). */
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** How long the plugin's output may go on after it exited: normally it has ended already. */
    static final Duration OUTPUT_AFTER_EXIT = Duration.ofSeconds(5);

    static final List<String> VERSIONS = List.of("client.authentication.k8s.io/v1",
            "client.authentication.k8s.io/v1beta1");

    private final String apiVersion;
    private final String command;
    private final List<String> args;
    private final Map<String, String> env;
    private final String installHint;
    private final boolean provideClusterInfo;
    private final String interactiveMode;
    private final String where;

    private ExecPlugin(String apiVersion, String command, List<String> args, Map<String, String> env,
                       String installHint, boolean provideClusterInfo, String interactiveMode, String where) {
        this.apiVersion = apiVersion;
        this.command = command;
        this.args = args;
        this.env = env;
        this.installHint = installHint;
        this.provideClusterInfo = provideClusterInfo;
        this.interactiveMode = interactiveMode;
        this.where = where;
    }

    /**
     * The plugin a kubeconfig user names, as fabric8's kubeconfig model holds it (a command with a '/' is already
     * absolute: {@link KubeconfigYaml}).
     *
     * @param where "kubeconfig FILE: user 'NAME' exec", for messages
     * @throws InputException when the entry cannot be run as kubectl would run it
     */
    static ExecPlugin of(ExecConfig e, String where) {
        String command = e.getCommand();
        if (command == null || command.isBlank()) {
            throw new InputException(where + " has no command");
        }
        String apiVersion = e.getApiVersion();
        if (apiVersion == null || !VERSIONS.contains(apiVersion)) {
            throw new InputException(where + " has apiVersion '" + apiVersion + "'; nodegate runs plugins of "
                    + String.join(" or ", VERSIONS) + " (v1alpha1 was removed from kubectl in 1.24)");
        }
        String mode = e.getInteractiveMode() == null ? "IfAvailable" : e.getInteractiveMode();
        if (!List.of("Never", "IfAvailable", "Always").contains(mode)) {
            throw new InputException(where + " has interactiveMode '" + mode + "'; expected Never, IfAvailable or "
                    + "Always");
        }
        Map<String, String> env = new LinkedHashMap<>();
        if (e.getEnv() != null) {
            e.getEnv().forEach(v -> env.put(v.getName(), v.getValue() == null ? "" : v.getValue()));
        }
        return new ExecPlugin(apiVersion, command, e.getArgs() == null ? List.of() : List.copyOf(e.getArgs()),
                Map.copyOf(env), e.getInstallHint(), Boolean.TRUE.equals(e.getProvideClusterInfo()), mode, where);
    }

    String command() {
        return command;
    }

    /** Runs the plugin once and returns its credentials. */
    ApiTarget.Credentials fetch(ApiTarget target) {
        if ("Always".equals(interactiveMode)) {
            throw new InputException("exec credential plugin '" + command + "' (" + where + ") has interactiveMode: "
                    + "Always, but nodegate runs plugins without a terminal; log in first (run the plugin or kubectl "
                    + "once), or set interactiveMode: IfAvailable");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(command);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        pb.environment().put("KUBERNETES_EXEC_INFO", execInfo(target));
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File(nullDevice())));
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new InputException("exec credential plugin '" + command + "' (" + where + ") could not be started: "
                    + e.getMessage() + (installHint == null || installHint.isBlank() ? ""
                    : "\n" + installHint.strip()));
        }
        CompletableFuture<byte[]> out = drain(p.getInputStream());
        CompletableFuture<byte[]> err = drain(p.getErrorStream());
        boolean done;
        try {
            done = p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new CollectionException("exec credential plugin '" + command + "' was interrupted");
        }
        if (!done) {
            p.destroyForcibly();
            throw new CollectionException("exec credential plugin '" + command + "' (" + where + ") gave no answer "
                    + "within " + TIMEOUT.toSeconds() + " s; is it waiting for a login? " + tail(err));
        }
        if (p.exitValue() != 0) {
            throw new CollectionException("exec credential plugin '" + command + "' (" + where + ") failed with exit "
                    + "code " + p.exitValue() + tail(err) + (installHint == null || installHint.isBlank() ? ""
                    : "\n" + installHint.strip()));
        }
        byte[] answer;
        try {
            // the output ends when every process holding it has closed it: one the plugin left running in the
            // background (an agent it started) would hold it for ever, so the answer gets a deadline of its own
            answer = out.get(OUTPUT_AFTER_EXIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new CollectionException("exec credential plugin '" + command + "' (" + where + ") exited, but its "
                    + "output did not end within " + OUTPUT_AFTER_EXIT.toSeconds() + " s after (a process it started "
                    + "in the background still holds it open)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectionException("exec credential plugin '" + command + "' was interrupted");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new CollectionException("exec credential plugin '" + command + "' (" + where + "): its output could "
                    + "not be read: " + e.getCause());
        }
        return parse(new String(answer, StandardCharsets.UTF_8));
    }

    private static String nullDevice() {
        return System.getProperty("os.name", "").startsWith("Windows") ? "NUL" : "/dev/null";
    }

    private String execInfo(ApiTarget target) {
        StringBuilder spec = new StringBuilder("{\"interactive\":false");
        if (provideClusterInfo) {
            spec.append(",\"cluster\":{\"server\":").append(quote(target.server()));
            if (target.tlsServerName() != null) {
                spec.append(",\"tls-server-name\":").append(quote(target.tlsServerName()));
            }
            if (target.insecureSkipTlsVerify()) {
                spec.append(",\"insecure-skip-tls-verify\":true");
            }
            if (target.caPem() != null) {
                spec.append(",\"certificate-authority-data\":").append(quote(ApiTarget.base64(target.caPem())));
            }
            if (target.proxy().url() != null) {
                spec.append(",\"proxy-url\":").append(quote(target.proxy().url()));
            }
            spec.append('}');
        }
        spec.append('}');
        return "{\"apiVersion\":" + quote(apiVersion) + ",\"kind\":\"ExecCredential\",\"spec\":" + spec + "}";
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private ApiTarget.Credentials parse(String stdout) {
        Object doc;
        try {
            doc = new Load(LoadSettings.builder().build()).loadFromString(stdout);
        } catch (RuntimeException e) {
            throw bad("its output is not JSON");
        }
        if (!(doc instanceof Map<?, ?> m)) {
            throw bad(stdout.isBlank() ? "it printed nothing" : "its output is not an ExecCredential object");
        }
        if (!"ExecCredential".equals(m.get("kind"))) {
            throw bad("its output has kind '" + m.get("kind") + "', not ExecCredential");
        }
        if (!apiVersion.equals(m.get("apiVersion"))) {
            throw bad("it answered apiVersion '" + m.get("apiVersion") + "', but the kubeconfig asked for " + apiVersion);
        }
        if (!(m.get("status") instanceof Map<?, ?> status)) {
            throw bad("its ExecCredential has no status");
        }
        String token = string(status.get("token"));
        String cert = string(status.get("clientCertificateData"));
        String key = string(status.get("clientKeyData"));
        if ((cert == null) != (key == null)) {
            throw bad("its status has " + (cert == null ? "clientKeyData without clientCertificateData"
                    : "clientCertificateData without clientKeyData"));
        }
        if (token == null && cert == null) {
            throw bad("its status has neither token nor clientCertificateData/clientKeyData");
        }
        Instant expires = null;
        String exp = string(status.get("expirationTimestamp"));
        if (exp != null) {
            try {
                expires = Instant.parse(exp);
            } catch (java.time.format.DateTimeParseException e) {
                throw bad("its status.expirationTimestamp '" + exp + "' is not an RFC 3339 time");
            }
        }
        return new ApiTarget.Credentials(token, cert, key, "exec credential plugin '" + command + "'", expires);
    }

    private static String string(Object o) {
        return o == null || String.valueOf(o).isEmpty() ? null : String.valueOf(o);
    }

    private CollectionException bad(String why) {
        return new CollectionException("exec credential plugin '" + command + "' (" + where + ") gave no usable "
                + "credential: " + why);
    }

    private static CompletableFuture<byte[]> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return in.readAllBytes();
            } catch (IOException e) {
                return new byte[0];
            }
        });
    }

    private static String tail(CompletableFuture<byte[]> err) {
        String text;
        try {
            text = new String(err.get(2, TimeUnit.SECONDS), StandardCharsets.UTF_8).strip();
        } catch (Exception e) {
            return "";
        }
        if (text.isEmpty()) {
            return "";
        }
        List<String> lines = text.lines().toList();
        List<String> last = lines.subList(Math.max(0, lines.size() - 5), lines.size());
        return ": " + String.join(" | ", last);
    }
}
