package io.nodegate.source.kube;

import io.fabric8.kubernetes.client.Config;
import io.nodegate.InputException;
import io.nodegate.testing.TestClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where fabric8's {@code Config} and kubectl's (client-go's) loading rules part, and the thin layer
 * {@link Kubeconfig} keeps on top of fabric8 for it. Each case first shows what fabric8 alone does with the same file
 * ({@link Config#fromKubeconfig(String, java.io.File)}), then what nodegate does: when fabric8 changes, the first half
 * fails and says which part of the layer can go.
 */
class KubeconfigRulesTest {

    @TempDir
    Path tmp;

    private static final String TWO_CONTEXTS = """
            clusters:
            - {name: prod, cluster: {server: "https://prod.example:6443"}}
            - {name: lab, cluster: {server: "https://lab.example:6443"}}
            users:
            - {name: op, user: {token: op-token}}
            contexts:
            - {name: prod, context: {cluster: prod, user: op}}
            - {name: lab, context: {cluster: lab, user: op}}
            current-context: lab
            """;

    @Test
    void aContextThatDoesNotExistIsAnErrorNotTheCurrentContext() throws IOException {
        Path kc = Files.writeString(tmp.resolve("config"), TWO_CONTEXTS);
        assertThat(Config.fromKubeconfig("prdo", kc.toFile()).getMasterUrl())
                .as("fabric8 alone: a mistyped --context talks to the current context").isEqualTo("https://lab.example:6443/");
        assertThatThrownBy(() -> Kubeconfig.resolve(kc, "prdo")).isInstanceOf(InputException.class)
                .hasMessage("context 'prdo' not found in kubeconfig " + kc + "; available contexts: lab, prod");
        assertThat(Kubeconfig.resolve(kc, "prod").server()).isEqualTo("https://prod.example:6443");
        assertThat(Kubeconfig.resolve(kc, null).context()).isEqualTo("lab");
    }

    @Test
    void theFirstFilesCurrentContextIsTheOneEvenWhenItNamesNothing() throws IOException {
        Path first = Files.writeString(tmp.resolve("first"), "current-context: gone\n");
        Path second = Files.writeString(tmp.resolve("second"), TWO_CONTEXTS);
        io.fabric8.kubernetes.client.Config alone = Config.empty();
        io.fabric8.kubernetes.client.internal.KubeConfigUtils.merge(alone, null,
                io.fabric8.kubernetes.client.internal.KubeConfigUtils.parseConfig(first.toFile()),
                io.fabric8.kubernetes.client.internal.KubeConfigUtils.parseConfig(second.toFile()));
        assertThat(alone.getCurrentContext().getName()).as("fabric8 alone: the next file's current-context")
                .isEqualTo("lab");
        String list = first + java.io.File.pathSeparator + second;
        io.nodegate.testing.SystemProperties.with(java.util.Map.of("kubeconfig", list), () ->
                assertThatThrownBy(() -> Kubeconfig.resolve(null, null)).isInstanceOf(InputException.class)
                        .hasMessage("context 'gone' (current-context) not found in kubeconfig " + list
                                + "; available contexts: lab, prod"));
    }

    @Test
    void aContextsClusterAndUserMustExist() throws IOException {
        Path noCluster = Files.writeString(tmp.resolve("no-cluster"), TWO_CONTEXTS.replace("cluster: lab, user", "cluster: labb, user"));
        assertThat(Config.fromKubeconfig(null, noCluster.toFile()).getMasterUrl())
                .as("fabric8 alone: the default server").isEqualTo("https://kubernetes.default.svc/");
        assertThatThrownBy(() -> Kubeconfig.resolve(noCluster, null)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + noCluster + ": context 'lab' uses cluster 'labb', which no clusters entry defines");

        Path noUser = Files.writeString(tmp.resolve("no-user"), TWO_CONTEXTS.replace("cluster: lab, user: op", "cluster: lab, user: po"));
        assertThat(Config.fromKubeconfig(null, noUser.toFile()).getAutoOAuthToken())
                .as("fabric8 alone: no credentials at all").isNull();
        assertThatThrownBy(() -> Kubeconfig.resolve(noUser, null)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + noUser + ": context 'lab' uses user 'po', which no users entry defines");
    }

    @Test
    void aTokenFileIsReadAndReadAgainAMinuteLater() throws IOException {
        Path token = Files.writeString(tmp.resolve("token"), "first-token\n");
        Path kc = Files.writeString(tmp.resolve("config"), TWO_CONTEXTS.replace("{token: op-token}", "{tokenFile: token}"));
        assertThat(Config.fromKubeconfig(null, kc.toFile()).getAutoOAuthToken()).as("fabric8 alone ignores tokenFile")
                .isNull();
        ApiTarget target = Kubeconfig.resolve(kc, null);
        assertThat(target.authorization()).isEqualTo("Bearer first-token");
        assertThat(target.config().getOauthTokenProvider().getToken())
                .as("fabric8's client asks the same provider").isEqualTo("first-token");

        TestClock clock = new TestClock(Instant.parse("2026-12-01T10:00:00Z"));
        Kubeconfig.TokenFile file = new Kubeconfig.TokenFile(token, "tokenFile", clock);
        assertThat(file.getToken()).isEqualTo("first-token");
        Files.writeString(token, "rotated-token");
        clock.advance(Duration.ofSeconds(30));
        assertThat(file.getToken()).isEqualTo("first-token");
        clock.advance(Duration.ofSeconds(31));
        assertThat(file.getToken()).isEqualTo("rotated-token");
    }

    @Test
    void anExecPluginIsRunByNodegateNotWhileFabric8Merges() throws IOException {
        // a plugin that says what it does on stderr (as kubelogin and the cloud plugins do) and answers on stdout
        Path runs = tmp.resolve("runs");
        Path plugin = script("plugin.sh", """
                #!/bin/sh
                echo run >> '%s'
                echo "opening a browser for the login..." >&2
                echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'
                """.formatted(runs));
        Path kc = Files.writeString(tmp.resolve("config"), TWO_CONTEXTS.replace("{token: op-token}", """
                {exec: {apiVersion: client.authentication.k8s.io/v1, command: %s, interactiveMode: Never}}""".formatted(plugin)));
        Config alone = Config.fromKubeconfig(null, kc.toFile());
        assertThat(Files.readAllLines(runs)).as("fabric8 alone runs the plugin while it reads the kubeconfig").hasSize(1);
        assertThat(alone.getAutoOAuthToken()).as("fabric8 alone reads stderr and stdout as one answer: no token, and no "
                + "error either").isNull();
        Files.delete(runs);

        ApiTarget target = Kubeconfig.resolve(kc, null);
        assertThat(runs).as("not run while resolving").doesNotExist();
        assertThat(target.authorization()).isEqualTo("Bearer from-plugin");
        assertThat(target.config().getOauthTokenProvider().getToken()).isEqualTo("from-plugin");
        assertThat(Files.readAllLines(runs)).as("one run serves both clients until it expires").hasSize(1);
    }

    @Test
    void aPluginWhoseOutputAChildHoldsOpenEndsAtTheDeadline() throws IOException {
        // the plugin answers and exits, but leaves a process behind that inherited its stdout: the output does not
        // end while that process lives. (The JDK closes a process's pipe when it exits only if no thread is blocked
        // reading it; the second's pause makes sure the reader is waiting, as it usually is.)
        Path plugin = script("lingering.sh", """
                #!/bin/sh
                echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'
                sleep 30 &
                sleep 1
                exit 0
                """);
        Path kc = Files.writeString(tmp.resolve("config"), TWO_CONTEXTS.replace("{token: op-token}", """
                {exec: {apiVersion: client.authentication.k8s.io/v1, command: %s}}""".formatted(plugin)));
        ApiTarget target = Kubeconfig.resolve(kc, null);
        long start = System.nanoTime();
        assertThatThrownBy(target::authorization).isInstanceOf(io.nodegate.CollectionException.class)
                .hasMessageContaining("exec credential plugin '" + plugin)
                .hasMessageContaining("its output did not end within 5 s");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ExecPlugin.OUTPUT_AFTER_EXIT.plusSeconds(10));
    }

    @Test
    void aFailingPluginIsAnErrorWhereFabric8CarriesOnWithoutCredentials() throws IOException {
        Path plugin = script("failing.sh", """
                #!/bin/sh
                echo "error: refresh token expired" >&2
                exit 1
                """);
        Path kc = Files.writeString(tmp.resolve("config"), TWO_CONTEXTS.replace("{token: op-token}", """
                {exec: {apiVersion: client.authentication.k8s.io/v1, command: %s}}""".formatted(plugin)));
        assertThat(Config.fromKubeconfig(null, kc.toFile()).getAutoOAuthToken()).as("fabric8 alone").isNull();
        ApiTarget target = Kubeconfig.resolve(kc, null);
        assertThatThrownBy(target::authorization).isInstanceOf(io.nodegate.CollectionException.class)
                .hasMessageContaining("exit code 1").hasMessageContaining("refresh token expired");
    }

    @Test
    void interactivePluginsAndOldApiVersionsAreRefusedBeforeAnythingRuns() throws IOException {
        Path always = Files.writeString(tmp.resolve("always"), TWO_CONTEXTS.replace("{token: op-token}",
                "{exec: {apiVersion: client.authentication.k8s.io/v1, command: kubelogin, interactiveMode: Always}}"));
        ApiTarget target = Kubeconfig.resolve(always, null);
        assertThatThrownBy(target::authorization).isInstanceOf(InputException.class)
                .hasMessageContaining("interactiveMode: Always").hasMessageContaining("log in first");
        Path alpha = Files.writeString(tmp.resolve("alpha"), TWO_CONTEXTS.replace("{token: op-token}",
                "{exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: kubelogin}}"));
        assertThatThrownBy(() -> Kubeconfig.resolve(alpha, null)).isInstanceOf(InputException.class)
                .hasMessageContaining(alpha + ": user 'op' exec has apiVersion 'client.authentication.k8s.io/v1alpha1'");
    }

    @Test
    void theProxyDecisionIsWrittenIntoTheConfigFabric8sClientUses() throws IOException {
        Path kc = Files.writeString(tmp.resolve("config"), TWO_CONTEXTS.replace("server: \"https://lab.example:6443\"",
                "server: \"https://lab.example:6443\", proxy-url: \"http://proxy.example:3128\""));
        Config alone = Config.fromKubeconfig(null, kc.toFile());
        assertThat(alone.getHttpsProxy()).as("fabric8 alone: the https server goes direct").isNull();
        ApiTarget target = Kubeconfig.resolve(kc, null);
        assertThat(target.proxy().url()).isEqualTo("http://proxy.example:3128");
        assertThat(target.config().getHttpsProxy()).isEqualTo("http://proxy.example:3128");
        assertThat(target.config().getHttpProxy()).isEqualTo("http://proxy.example:3128");

        Path withPassword = Files.writeString(tmp.resolve("password"), TWO_CONTEXTS.replace(
                "server: \"https://lab.example:6443\"",
                "server: \"https://lab.example:6443\", proxy-url: \"http://op:hunter2@proxy.example:3128\""));
        assertThatThrownBy(() -> Kubeconfig.resolve(withPassword, null)).isInstanceOf(InputException.class)
                .hasMessageContaining("proxy-url").hasMessageContaining("user name/password")
                .hasMessageNotContaining("hunter2");
        Path tls = Files.writeString(tmp.resolve("tls-proxy"), TWO_CONTEXTS.replace(
                "server: \"https://lab.example:6443\"",
                "server: \"https://lab.example:6443\", proxy-url: \"https://proxy.example:3129\""));
        assertThatThrownBy(() -> Kubeconfig.resolve(tls, null)).isInstanceOf(InputException.class)
                .hasMessageContaining("scheme 'https'");
    }

    @Test
    void refusalsNameTheFileAndTheKey() throws IOException {
        Path both = Files.writeString(tmp.resolve("both"), TWO_CONTEXTS.replace("{token: op-token}",
                "{token: op-token, username: op, password: pw}"));
        assertThatThrownBy(() -> Kubeconfig.resolve(both, null)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + both + ": user 'op' sets both a token and username/password; client-go "
                        + "allows one of them");
        Path as = Files.writeString(tmp.resolve("as"), TWO_CONTEXTS.replace("{token: op-token}",
                "{token: op-token, as-groups: [system:masters]}"));
        assertThatThrownBy(() -> Kubeconfig.resolve(as, null)).isInstanceOf(InputException.class)
                .hasMessageContaining(as + ": user 'op' impersonates another user");
        Path scheme = Files.writeString(tmp.resolve("scheme"), TWO_CONTEXTS.replace("\"https://lab.example:6443\"",
                "\"lab.example:6443\""));
        assertThat(Config.fromKubeconfig(null, scheme.toFile()).getMasterUrl())
                .as("fabric8 alone (like client-go without TLS settings) talks plain http").isEqualTo("http://lab.example:6443/");
        assertThatThrownBy(() -> Kubeconfig.resolve(scheme, null)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + scheme + ": cluster 'lab': server 'lab.example:6443' is not an http:// or "
                        + "https:// URL");
    }

    @Test
    void theKubeconfigsCaIsTheOnlyOneTrustedByBothClients() throws Exception {
        Path certs = Files.createDirectories(tmp.resolve("certs"));
        io.nodegate.testing.TestCerts test = io.nodegate.testing.TestCerts.create(certs);
        Path kc = Files.writeString(tmp.resolve("config"), TWO_CONTEXTS.replace("server: \"https://lab.example:6443\"",
                "server: \"https://lab.example:6443\", certificate-authority: certs/ca.crt"));
        Config alone = Config.fromKubeconfig(null, kc.toFile());
        assertThat(issuers(io.fabric8.kubernetes.client.internal.SSLUtils.trustManagers(alone)))
                .as("fabric8 alone adds the JDK's public CAs to the kubeconfig's").isGreaterThan(1);
        ApiTarget target = Kubeconfig.resolve(kc, null);
        assertThat(issuers(target.tls().trustManagers())).as("what reads and fabric8's client trust").isEqualTo(1);
        assertThat(test.caCert).exists();
    }

    private static int issuers(javax.net.ssl.TrustManager[] managers) {
        return java.util.Arrays.stream(managers).filter(m -> m instanceof javax.net.ssl.X509TrustManager)
                .mapToInt(m -> ((javax.net.ssl.X509TrustManager) m).getAcceptedIssuers().length).sum();
    }

    private Path script(String name, String body) throws IOException {
        Path file = tmp.resolve(name);
        Files.writeString(file, body, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }
}
