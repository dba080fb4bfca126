package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.model.ClusterState;
import io.nodegate.source.Fixtures;
import io.nodegate.source.tls.PemTls;
import io.nodegate.testing.ApiTestServer;
import io.nodegate.testing.DelayProxy;
import io.nodegate.testing.FaultProxy;
import io.nodegate.testing.SystemProperties;
import io.nodegate.testing.TestCerts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The lean live client over real HTTP(S): the kubeconfig resolved by fabric8's {@code Config} with nodegate's thin
 * layer on top ({@link Kubeconfig}) and the HttpURLConnection read layer fed from it ({@link ApiHttp}), against the
 * project's test API server, behind a TLS front made from real openssl certificates where TLS matters. Each case
 * reads the cluster the way a live audit does ({@link LiveSource#load}) and checks that no fabric8 client was built
 * for it; the last cases build fabric8's client from the same resolution and use it.
 */
class LeanClientTest {

    private static final String TOKEN = "lean-test-token-not-a-secret";

    @TempDir
    static Path tmp;

    static TestCerts certs;
    static ApiTestServer api;
    /** TLS with the test CA's certificate for 127.0.0.1 and localhost. */
    static DelayProxy tls;
    /** TLS that also demands a client certificate from the test CA. */
    static DelayProxy mutual;

    @BeforeAll
    static void start() throws IOException {
        certs = TestCerts.create(Files.createDirectories(tmp.resolve("certs")));
        api = ApiTestServer.start();
        api.create(Fixtures.cluster(2, false).toArray(HasMetadata[]::new));
        tls = DelayProxy.start(api.url(), 0, PemTls.sslContext(null, certs.serverCert, certs.serverKey));
        mutual = DelayProxy.startMutualTls(api.url(), PemTls.sslContext(certs.caCert, certs.serverCert, certs.serverKey));
    }

    @AfterAll
    static void stop() {
        tls.close();
        mutual.close();
        api.close();
    }

    /** A TLS front to the test server whose certificate, from the test CA, carries only {@code subjectAltName}. */
    private static DelayProxy frontNaming(String base, String subjectAltName) throws IOException {
        Path cert = certs.serverCertificate(base, "/CN=kube-apiserver", subjectAltName);
        return DelayProxy.start(api.url(), 0, PemTls.sslContext(null, cert, certs.dir.resolve(base + ".key")));
    }

    private static String https(DelayProxy proxy) {
        return "https://127.0.0.1:" + proxy.port();
    }

    /** A one-context kubeconfig; {@code cluster} and {@code user} are YAML lines indented by 4. */
    private static Path kubeconfig(String name, String cluster, String user) throws IOException {
        Path file = tmp.resolve(name);
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: c
                  cluster:
                %s
                users:
                - name: u
                  user:
                %s
                contexts:
                - name: lab
                  context:
                    cluster: c
                    user: u
                current-context: lab
                """.formatted(cluster.indent(4).stripTrailing(), user.isBlank() ? "    {}" : user.indent(4).stripTrailing()));
        return file;
    }

    private static ClusterState loadVia(ApiTarget target) {
        KubeConnection connection = KubeConnection.of(target, Duration.ofSeconds(10), true);
        try (LiveSource live = new LiveSource(connection, Clock.systemUTC(), 500)) {
            ClusterState state = live.load(false);
            assertThat(connection.clientBuilt()).as("a read must not build a fabric8 client").isFalse();
            return state;
        }
    }

    private static String b64(Path file) throws IOException {
        return Base64.getEncoder().encodeToString(Files.readAllBytes(file));
    }

    @Test
    void tokenOverTlsWithTheKubeconfigsCaFile() throws IOException {
        api.requireBearerToken(TOKEN);
        try {
            Path kc = kubeconfig("token-ca", "server: " + https(tls) + "\ncertificate-authority: certs/ca.crt",
                    "token: " + TOKEN);
            ApiTarget target = Kubeconfig.resolve(kc, null);
            assertThat(target.server()).isEqualTo(https(tls));
            assertThat(target.context()).isEqualTo("lab");
            ClusterState state = loadVia(target);
            assertThat(state.nodes()).hasSize(5);
            assertThat(state.source()).isEqualTo("live: context lab (" + https(tls) + ")");

            Path wrongToken = kubeconfig("token-wrong", "server: " + https(tls) + "\ncertificate-authority: certs/ca.crt",
                    "token: not-the-token");
            assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(wrongToken, null)))
                    .isInstanceOf(CollectionException.class)
                    .hasMessageContaining("401 Unauthorized from " + https(tls))
                    .hasMessageContaining("credentials rejected");
        } finally {
            api.requireBearerToken(null);
        }
    }

    @Test
    void aServerCertificateFromAnotherCaIsRefusedAndInsecureSkipsTheCheck() throws IOException {
        Path otherCa = kubeconfig("other-ca", "server: " + https(tls) + "\ncertificate-authority-data: "
                + b64(certs.otherCaCert), "");
        assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(otherCa, null)))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("GET /version: TLS with API server " + https(tls) + " failed")
                .hasMessageContaining("not signed by the kubeconfig's certificate-authority");

        Path insecure = kubeconfig("insecure", "server: " + https(tls) + "\ninsecure-skip-tls-verify: true", "");
        assertThat(loadVia(Kubeconfig.resolve(insecure, null)).nodes()).hasSize(5);

        Path both = kubeconfig("both", "server: " + https(tls) + "\ninsecure-skip-tls-verify: true\n"
                + "certificate-authority: certs/ca.crt", "");
        assertThatThrownBy(() -> Kubeconfig.resolve(both, null)).isInstanceOf(InputException.class)
                .hasMessageContaining(both.toString()).hasMessageContaining("cluster 'c'")
                .hasMessageContaining("both insecure-skip-tls-verify and a certificate authority");
    }

    @Test
    void tlsServerNameIsTheNameTheCertificateIsCheckedAgainst() throws IOException {
        // an apiserver reached by IP through a tunnel, whose certificate names only kubernetes.default.svc
        try (DelayProxy named = frontNaming("svc-only", "DNS:kubernetes.default.svc")) {
            String server = "server: " + https(named) + "\ncertificate-authority: certs/ca.crt";
            Path byIp = kubeconfig("by-ip", server, "");
            assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(byIp, null)))
                    .isInstanceOf(CollectionException.class)
                    .hasMessageContaining("TLS with API server " + https(named) + " failed")
                    .hasMessageContaining("127.0.0.1")
                    .hasMessageContaining("set tls-server-name");
            Path withName = kubeconfig("with-name", server + "\ntls-server-name: kubernetes.default.svc", "");
            assertThat(loadVia(Kubeconfig.resolve(withName, null)).nodes()).hasSize(5);
            Path wrongName = kubeconfig("wrong-name", server + "\ntls-server-name: apiserver.example", "");
            assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(wrongName, null)))
                    .isInstanceOf(CollectionException.class)
                    .hasMessageContaining("apiserver.example")
                    .hasMessageContaining("the kubeconfig's tls-server-name");
        }
        // the JDK would accept a certificate valid for the URL's host when the tls-server-name check fails (its
        // "failover to check peer host"); client-go checks tls-server-name alone, and so must nodegate: the front's
        // certificate names 127.0.0.1, the URL's host, but not apiserver.example
        Path elsewhere = kubeconfig("valid-for-ip-only", "server: " + https(tls) + "\ncertificate-authority: "
                + "certs/ca.crt\ntls-server-name: apiserver.example", "");
        assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(elsewhere, null)))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("apiserver.example");
        // a certificate with a wildcard and one with a name in the Common Name only: the JDK's rules
        try (DelayProxy front = frontNaming("wildcard", "DNS:*.cluster.example,IP:10.9.9.9")) {
            String server = "server: " + https(front) + "\ncertificate-authority: certs/ca.crt";
            assertThat(loadVia(Kubeconfig.resolve(kubeconfig("wildcard-ok", server
                    + "\ntls-server-name: api.cluster.example", ""), null)).nodes()).hasSize(5);
            assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(kubeconfig("wildcard-two-labels", server
                    + "\ntls-server-name: a.b.cluster.example", ""), null)))
                    .isInstanceOf(CollectionException.class).hasMessageContaining("a.b.cluster.example");
            assertThat(loadVia(Kubeconfig.resolve(kubeconfig("by-san-ip", server + "\ntls-server-name: 10.9.9.9", ""),
                    null)).nodes()).as("an IP as tls-server-name is checked against the IP entries").hasSize(5);
        }
    }

    @Test
    void clientCertificatesRsaAndEcInFilesAndInline() throws IOException {
        String server = "server: " + https(mutual) + "\ncertificate-authority: certs/ca.crt";
        Path rsa = kubeconfig("rsa", server, "client-certificate: certs/client-rsa.crt\nclient-key: certs/client-rsa.key");
        assertThat(loadVia(Kubeconfig.resolve(rsa, null)).nodes()).hasSize(5);
        Path ecInline = kubeconfig("ec-inline", server, "client-certificate-data: " + b64(certs.ecCert)
                + "\nclient-key-data: " + b64(certs.ecSec1Key));
        assertThat(loadVia(Kubeconfig.resolve(ecInline, null)).nodes()).hasSize(5);
        Path ecPkcs8 = kubeconfig("ec-pkcs8", server, "client-certificate: certs/client-ec.crt\n"
                + "client-key: certs/client-ec-pkcs8.key");
        assertThat(loadVia(Kubeconfig.resolve(ecPkcs8, null)).nodes()).hasSize(5);

        // without a certificate the server ends the connection: in TLS 1.3 the client may learn it only when it
        // writes the request, so the wording varies (a TLS alert or a broken write); the call and server are named
        Path none = kubeconfig("no-cert", server, "");
        assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(none, null)))
                .isInstanceOf(CollectionException.class)
                .hasMessageStartingWith("GET /version: ")
                .hasMessageContaining("API server " + https(mutual));

        Path mismatched = kubeconfig("mismatch", server, "client-certificate: certs/client-rsa.crt\n"
                + "client-key: certs/client-ec.key");
        assertThatThrownBy(() -> Kubeconfig.resolve(mismatched, null)).isInstanceOf(InputException.class)
                .hasMessageContaining("does not belong to the certificate");
        Path keyless = kubeconfig("keyless", server, "client-certificate: certs/client-rsa.crt");
        assertThatThrownBy(() -> Kubeconfig.resolve(keyless, null)).isInstanceOf(InputException.class)
                .hasMessageContaining("user 'u'").hasMessageContaining("without a client key");
    }

    @Test
    void anExecPluginsTokenAndCertificateAreUsedAndItIsToldWhatIsAsked() throws IOException {
        Path info = tmp.resolve("exec-info.json");
        Path plugin = script("token-plugin.sh", """
                #!/bin/sh
                printf '%%s' "$KUBERNETES_EXEC_INFO" > '%s'
                [ "$1" = "--cluster" ] && [ "$2" = "lab" ] && [ "$NODEGATE_TEST_ENV" = "yes" ] || exit 9
                cat <<EOF
                {"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                 "status":{"token":"%s","expirationTimestamp":"2099-01-01T00:00:00Z"}}
                EOF
                """.formatted(info, TOKEN));
        api.requireBearerToken(TOKEN);
        try {
            Path kc = kubeconfig("exec-token", "server: " + https(tls) + "\ncertificate-authority: certs/ca.crt",
                    exec("client.authentication.k8s.io/v1", "./" + plugin.getFileName(), true, null));
            assertThat(loadVia(Kubeconfig.resolve(kc, null)).nodes()).hasSize(5);
            String asked = Files.readString(info);
            assertThat(asked).contains("\"apiVersion\":\"client.authentication.k8s.io/v1\"")
                    .contains("\"kind\":\"ExecCredential\"").contains("\"interactive\":false")
                    .contains("\"server\":\"" + https(tls) + "\"").contains("\"certificate-authority-data\":\"");
        } finally {
            api.requireBearerToken(null);
        }

        // v1beta1, answering with a client certificate (EC, SEC1) instead of a token
        Path certPlugin = script("cert-plugin.sh", """
                #!/bin/sh
                [ "$1" = "--cluster" ] || exit 9
                printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{'
                printf '"clientCertificateData":"%s","clientKeyData":"%s"}}'
                """.formatted(json(Files.readString(certs.ecCert)), json(Files.readString(certs.ecSec1Key))));
        Path kc = kubeconfig("exec-cert", "server: " + https(mutual) + "\ncertificate-authority: certs/ca.crt",
                exec("client.authentication.k8s.io/v1beta1", certPlugin.toString(), false, null));
        assertThat(loadVia(Kubeconfig.resolve(kc, null)).nodes()).hasSize(5);
    }

    @Test
    void aFailingOrMissingExecPluginIsAnErrorNamingItAndItsInstallHint() throws IOException {
        Path failing = script("expired.sh", """
                #!/bin/sh
                echo "error: the refresh token has expired, run 'rancher login'" >&2
                exit 1
                """);
        Path kc = kubeconfig("exec-fails", "server: " + https(tls) + "\ncertificate-authority: certs/ca.crt",
                exec("client.authentication.k8s.io/v1", failing.toString(), false, "Install it from the Rancher UI"));
        assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(kc, null)))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("exec credential plugin '" + failing + "'")
                .hasMessageContaining("user 'u'")
                .hasMessageContaining("exit code 1")
                .hasMessageContaining("the refresh token has expired")
                .hasMessageContaining("Install it from the Rancher UI");

        Path missing = kubeconfig("exec-missing", "server: " + https(tls), exec("client.authentication.k8s.io/v1",
                "kubectl-no-such-plugin", false, "brew install no-such-plugin"));
        assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(missing, null)))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("exec credential plugin 'kubectl-no-such-plugin'")
                .hasMessageContaining("could not be started")
                .hasMessageContaining("brew install no-such-plugin");

        Path noToken = script("empty-status.sh", """
                #!/bin/sh
                echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}}'
                """);
        Path empty = kubeconfig("exec-empty", "server: " + https(tls),
                exec("client.authentication.k8s.io/v1", noToken.toString(), false, null));
        assertThatThrownBy(() -> loadVia(Kubeconfig.resolve(empty, null)))
                .isInstanceOf(CollectionException.class)
                .hasMessageContaining("neither token nor clientCertificateData");
    }

    @Test
    void kubeconfigListMergesFirstFileWinsAndResolvesPathsPerFile() throws IOException {
        Path dirA = Files.createDirectories(tmp.resolve("merge-a"));
        Path dirB = Files.createDirectories(tmp.resolve("merge-b"));
        Files.copy(certs.caCert, dirB.resolve("their-ca.crt"));
        Path a = dirA.resolve("config");
        Files.writeString(a, """
                clusters:
                - name: shared
                  cluster: {server: "%s", insecure-skip-tls-verify: true}
                contexts:
                - name: first
                  context: {cluster: shared}
                current-context: first
                """.formatted(https(tls)));
        Path b = dirB.resolve("config");
        Files.writeString(b, """
                clusters:
                - name: shared
                  cluster: {server: "https://10.255.255.1:6443"}
                - name: second-cluster
                  cluster: {server: "%s", certificate-authority: their-ca.crt}
                contexts:
                - name: first
                  context: {cluster: second-cluster}
                - name: second
                  context: {cluster: second-cluster, user: bob}
                users:
                - name: bob
                  user: {token: bob-token}
                current-context: second
                """.formatted(https(tls)));
        // fabric8 reads the list from the system property "kubeconfig" before $KUBECONFIG
        String list = tmp.resolve("absent") + java.io.File.pathSeparator + a + java.io.File.pathSeparator + b;
        SystemProperties.with(Map.of("kubeconfig", list), () -> {
            ApiTarget first = Kubeconfig.resolve(null, null);
            assertThat(first.context()).isEqualTo("first");
            assertThat(first.insecureSkipTlsVerify()).as("cluster 'shared' and context 'first' come from the first file")
                    .isTrue();
            assertThat(loadVia(first).nodes()).hasSize(5);
            ApiTarget second = Kubeconfig.resolve(null, "second");
            assertThat(second.caPem()).as("their-ca.crt is relative to the second file").contains("BEGIN CERTIFICATE");
            assertThat(second.authorization()).isEqualTo("Bearer bob-token");
            assertThat(second.userName()).isEqualTo("bob");
            assertThat(loadVia(second).nodes()).hasSize(5);
            assertThatThrownBy(() -> Kubeconfig.resolve(null, "third")).isInstanceOf(InputException.class)
                    .hasMessageContaining("context 'third' not found in kubeconfig " + a + java.io.File.pathSeparator + b)
                    .hasMessageContaining("available contexts: first, second");
        });
    }

    @Test
    void inClusterUsesTheServiceVariablesTokenAndCa() throws IOException {
        Path sa = Files.createDirectories(tmp.resolve("serviceaccount"));
        // as the kubelet writes a projected token: the JWT alone, no newline (fabric8 sends the file as it is)
        Path token = Files.writeString(sa.resolve("token"), TOKEN);
        Path ca = Files.copy(certs.caCert, sa.resolve("ca.crt"));
        // fabric8's in-cluster sources, as system properties (they win over the environment)
        Map<String, String> inCluster = Map.of("kubeconfig", tmp.resolve("no-kubeconfig").toString(),
                "KUBERNETES_SERVICE_HOST", "127.0.0.1", "KUBERNETES_SERVICE_PORT", Integer.toString(tls.port()),
                "kubernetes.auth.serviceAccount.token", token.toString(), "kubernetes.certs.ca.file", ca.toString());
        api.requireBearerToken(TOKEN);
        try {
            SystemProperties.with(inCluster, () -> {
                ApiTarget target = Kubeconfig.resolve(null, null);
                assertThat(target.server()).isEqualTo(https(tls));
                assertThat(target.describe()).isEqualTo("in-cluster (" + https(tls) + ")");
                assertThat(loadVia(target).source()).isEqualTo("live: in-cluster (" + https(tls) + ")");
            });
        } finally {
            api.requireBearerToken(null);
        }
        Map<String, String> outside = Map.of("kubeconfig", tmp.resolve("no-kubeconfig").toString(),
                "kubernetes.auth.serviceAccount.token", token.toString());
        SystemProperties.with(outside, () -> {
            org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("KUBERNETES_SERVICE_HOST") == null,
                    "this test runs inside a Pod");
            assertThatThrownBy(() -> Kubeconfig.resolve(null, null)).isInstanceOf(InputException.class)
                    .hasMessageContaining("no kubeconfig found").hasMessageContaining("not running inside a cluster");
        });
    }

    @Test
    void unsupportedAndBrokenKubeconfigsSayWhatAndWhere() throws IOException {
        Path authProvider = kubeconfig("auth-provider", "server: " + https(tls),
                "auth-provider:\n  name: oidc\n  config: {idp-issuer-url: https://sso.example}");
        assertThatThrownBy(() -> Kubeconfig.resolve(authProvider, null)).isInstanceOf(InputException.class)
                .hasMessageContaining(authProvider.toString()).hasMessageContaining("auth-provider 'oidc'")
                .hasMessageContaining("exec credential plugin");
        Path noServer = kubeconfig("no-server", "insecure-skip-tls-verify: true", "");
        assertThatThrownBy(() -> Kubeconfig.resolve(noServer, null)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + noServer + ": cluster 'c' has no server");
        Path badCa = kubeconfig("bad-ca", "server: " + https(tls) + "\ncertificate-authority: certs/nope.crt", "");
        assertThatThrownBy(() -> Kubeconfig.resolve(badCa, null)).isInstanceOf(InputException.class)
                .hasMessageContaining("cluster 'c' certificate-authority").hasMessageContaining("nope.crt not found");
        Path socksWithPassword = kubeconfig("proxy-auth", "server: " + https(tls)
                + "\nproxy-url: http://op:secret@proxy.example:3128", "");
        assertThatThrownBy(() -> Kubeconfig.resolve(socksWithPassword, null)).isInstanceOf(InputException.class)
                .hasMessageContaining("proxy-url").hasMessageNotContaining("secret");
        Path missingUser = tmp.resolve("missing-user");
        Files.writeString(missingUser, Files.readString(kubeconfig("tmp-mu", "server: " + https(tls), ""))
                .replace("user: u", "user: nobody"));
        assertThatThrownBy(() -> Kubeconfig.resolve(missingUser, null)).isInstanceOf(InputException.class)
                .hasMessageContaining("context 'lab' uses user 'nobody', which no users entry defines");
    }

    @Test
    void aHttpProxyFromTheKubeconfigCarriesTheReads() throws Exception {
        try (ForwardProxy forwardProxy = new ForwardProxy(api.url(), tls.port())) {
            // the server's name resolves nowhere: only a proxy that is really used can reach it
            Path kc = kubeconfig("via-proxy", "server: http://apiserver.invalid:6443\nproxy-url: http://127.0.0.1:"
                    + forwardProxy.port(), "");
            ApiTarget target = Kubeconfig.resolve(kc, null);
            assertThat(target.proxy().url()).isEqualTo("http://127.0.0.1:" + forwardProxy.port());
            assertThat(loadVia(target).nodes()).hasSize(5);
            assertThat(forwardProxy.seen).contains("GET http://apiserver.invalid:6443/version HTTP/1.1");
        }
        assertThat(ProxySetting.fromEnvironment("https://10.0.0.1:6443", Map.of("HTTPS_PROXY", "http://p:3128",
                "NO_PROXY", "10.0.0.0/8")).url()).isNull();
        assertThat(ProxySetting.fromEnvironment("https://10.0.0.1:6443", Map.of("https_proxy", "http://p:3128",
                "no_proxy", ".example.org")).url()).isEqualTo("http://p:3128");
        assertThat(ProxySetting.fromEnvironment("https://badexample.com:6443", Map.of("HTTPS_PROXY", "http://p:3128",
                "NO_PROXY", "example.com")).url()).as("NO_PROXY matches whole domain labels, as Go's")
                .isEqualTo("http://p:3128");
    }

    @Test
    void anHttpProxyUrlCarriesAnHttpsServerForTheReadsAndForFabric8sClient() throws Exception {
        // fabric8's own Config drops an http:// proxy-url when the server is https:// (fabric8 pull request #7948):
        // the client would go straight to the server. Both of nodegate's clients go through the proxy, with a
        // CONNECT tunnel, and check the server's certificate against the server's name.
        try (DelayProxy named = frontNaming("invalid-name", "DNS:apiserver.invalid");
             ForwardProxy forwardProxy = new ForwardProxy(api.url(), named.port())) {
            Path kc = kubeconfig("https-via-proxy", "server: https://apiserver.invalid:6443\nproxy-url: http://127.0.0.1:"
                    + forwardProxy.port() + "\ncertificate-authority: certs/ca.crt", "");
            io.fabric8.kubernetes.client.Config fabric8Alone = io.fabric8.kubernetes.client.Config.fromKubeconfig(null,
                    kc.toFile());
            assertThat(fabric8Alone.getHttpsProxy()).as("fabric8 alone: no proxy for the https server").isNull();

            ApiTarget target = Kubeconfig.resolve(kc, null);
            assertThat(loadVia(target).nodes()).hasSize(5);
            assertThat(forwardProxy.seen).contains("CONNECT apiserver.invalid:6443 HTTP/1.1");
            forwardProxy.seen.clear();
            try (KubeConnection connection = KubeConnection.of(target, Duration.ofSeconds(10), false)) {
                assertThat(connection.client().nodes().list().getItems()).hasSize(5);
            }
            assertThat(forwardProxy.seen).as("fabric8's client through the same proxy")
                    .contains("CONNECT apiserver.invalid:6443 HTTP/1.1");
        }
    }

    @Test
    void fabric8sClientSendsTlsServerNameToAnApiserverReachedByIp() throws IOException {
        // fabric8's JDK client ignores tls-server-name; nodegate hands it to the JDK as the SNI name
        try (DelayProxy named = frontNaming("svc-only-writes", "DNS:kubernetes.default.svc")) {
            String server = "server: " + https(named) + "\ncertificate-authority: certs/ca.crt";
            try (KubeConnection connection = KubeConnection.of(Kubeconfig.resolve(kubeconfig("writes-named", server
                    + "\ntls-server-name: kubernetes.default.svc", ""), null), Duration.ofSeconds(10), false)) {
                assertThat(connection.client().nodes().list().getItems()).hasSize(5);
            }
            try (KubeConnection connection = KubeConnection.of(Kubeconfig.resolve(kubeconfig("writes-unnamed", server,
                    ""), null), Duration.ofSeconds(10), false)) {
                assertThatThrownBy(() -> connection.client().nodes().list())
                        .as("without tls-server-name the certificate does not name 127.0.0.1")
                        .hasStackTraceContaining("127.0.0.1");
            }
        }
    }

    /**
     * A minimal HTTP forward proxy: one request per connection, the request line rewritten to the upstream's path;
     * a CONNECT is tunnelled to the TLS front on {@code tlsPort}, whatever host it names.
     */
    private static final class ForwardProxy implements AutoCloseable {
        final java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        final java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.net.URI upstream;
        final int tlsPort;

        ForwardProxy(String upstreamUrl, int tlsPort) throws IOException {
            upstream = java.net.URI.create(upstreamUrl);
            this.tlsPort = tlsPort;
            Thread t = new Thread(() -> {
                while (!listener.isClosed()) {
                    try {
                        java.net.Socket client = listener.accept();
                        Thread one = new Thread(() -> {
                            try (client) {
                                handle(client);
                            } catch (IOException e) {
                                // the client went away
                            }
                        }, "forward-proxy-connection");
                        one.setDaemon(true);
                        one.start();
                    } catch (IOException e) {
                        // closed
                    }
                }
            }, "forward-proxy");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        private void handle(java.net.Socket client) throws IOException {
            var in = client.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                head.append((char) b);
            }
            String[] lines = head.toString().split("\r\n");
            seen.add(lines[0]);
            String[] requestLine = lines[0].split(" ");
            if (requestLine[0].equals("CONNECT")) {
                try (java.net.Socket up = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), tlsPort)) {
                    client.getOutputStream().write("HTTP/1.1 200 Connection established\r\n\r\n"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    client.getOutputStream().flush();
                    Thread back = new Thread(() -> {
                        try {
                            up.getInputStream().transferTo(client.getOutputStream());
                        } catch (IOException e) {
                            // one side closed
                        }
                    }, "forward-proxy-tunnel");
                    back.setDaemon(true);
                    back.start();
                    in.transferTo(up.getOutputStream());
                }
                return;
            }
            String path = java.net.URI.create(requestLine[1]).getRawPath();
            String query = java.net.URI.create(requestLine[1]).getRawQuery();
            StringBuilder out = new StringBuilder(requestLine[0] + " " + path + (query == null ? "" : "?" + query)
                    + " HTTP/1.1\r\n");
            for (int i = 1; i < lines.length; i++) {
                String l = lines[i].toLowerCase(java.util.Locale.ROOT);
                if (!l.startsWith("connection") && !l.startsWith("proxy-connection") && !l.isEmpty()) {
                    out.append(lines[i]).append("\r\n");
                }
            }
            out.append("Connection: close\r\n\r\n");
            try (java.net.Socket up = new java.net.Socket(upstream.getHost(), upstream.getPort())) {
                up.getOutputStream().write(out.toString().getBytes(StandardCharsets.ISO_8859_1));
                up.getOutputStream().flush();
                up.getInputStream().transferTo(client.getOutputStream());
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }

    @Test
    void aTrickledBodyEndsAtTheDeadlineNamingTheServer() throws IOException {
        try (FaultProxy proxy = new FaultProxy(api.url())) {
            proxy.breakCall(1, FaultProxy.Fault.TRICKLE); // 0 is GET /version, 1 the first LIST
            KubeConnection connection = KubeConnection.of(ApiTarget.of(proxy.url(), null), Duration.ofSeconds(1), true);
            long start = System.nanoTime();
            try (LiveSource live = new LiveSource(connection, Clock.systemUTC(), 500)) {
                assertThatThrownBy(() -> live.load(false)).isInstanceOf(CollectionException.class)
                        .hasMessageContaining("no answer from API server " + proxy.url() + " within 1s")
                        .hasMessageContaining("the whole answer, headers and body");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void theFabric8ClientForWritesIsBuiltFromTheSameTargetAndReadsBesideAClientAuthenticateAsIt() throws IOException {
        // kubeconfig -> ApiTarget -> fabric8 client: an EC client certificate over mutual TLS, and an exec token
        // fabric8's SSLUtils alone cannot read either key: the SEC1 file opens with openssl's "EC PARAMETERS" block,
        // and an EC key in PKCS#8 is taken for RSA; the resolution hands fabric8 the key as PKCS#8 with its algorithm
        for (String key : java.util.List.of("client-ec.key", "client-ec-pkcs8.key")) {
            io.fabric8.kubernetes.client.Config alone = new io.fabric8.kubernetes.client.ConfigBuilder(
                    io.fabric8.kubernetes.client.Config.empty()).withClientCertFile(certs.ecCert.toString())
                    .withClientKeyFile(certs.dir.resolve(key).toString()).build();
            alone.setClientKeyAlgo(io.fabric8.kubernetes.client.Config.getKeyAlgorithm(alone.getClientKeyFile(), null));
            assertThatThrownBy(() -> io.fabric8.kubernetes.client.internal.SSLUtils.keyManagers(alone))
                    .as("fabric8 alone, " + key).isInstanceOf(Exception.class);
            Path ec = kubeconfig("fabric8-" + key, "server: " + https(mutual) + "\ncertificate-authority: certs/ca.crt",
                    "client-certificate: certs/client-ec.crt\nclient-key: certs/" + key);
            try (KubeConnection connection = KubeConnection.of(Kubeconfig.resolve(ec, null), Duration.ofSeconds(10),
                    false)) {
                assertThat(connection.client().nodes().list().getItems()).hasSize(5);
                assertThat(connection.clientBuilt()).isTrue();
            }
        }
        Path runs = tmp.resolve("fabric8-token-runs");
        Path plugin = script("fabric8-token.sh", """
                #!/bin/sh
                echo run >> '%s'
                echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}'
                """.formatted(runs, TOKEN));
        api.requireBearerToken(TOKEN);
        try {
            Path kc = kubeconfig("fabric8-exec", "server: " + https(tls) + "\ncertificate-authority: certs/ca.crt",
                    exec("client.authentication.k8s.io/v1", plugin.toString(), false, null));
            ApiTarget target = Kubeconfig.resolve(kc, null);
            assertThat(runs).as("resolving runs no plugin (fabric8 would run it while merging)").doesNotExist();
            try (KubeConnection connection = KubeConnection.of(target, Duration.ofSeconds(10), false)) {
                assertThat(new ApiCalls(connection).serverVersion()).startsWith("v1.");
                assertThat(connection.client().nodes().list().getItems()).hasSize(5);
            }
            assertThat(Files.readAllLines(runs)).as("one answer serves the reads and fabric8's client").hasSize(1);

            // fabric8 client -> ApiTarget: a token provider and a CA are carried over to the lean reads
            io.fabric8.kubernetes.client.Config config = new io.fabric8.kubernetes.client.ConfigBuilder(
                    io.fabric8.kubernetes.client.Config.empty()).withMasterUrl(https(tls)).withCaCertData(b64(certs.caCert))
                    .withOauthTokenProvider(() -> TOKEN).build();
            try (var client = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config)
                    .withHttpClientFactory(new io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory()).build()) {
                assertThat(new ApiCalls(KubeConnection.wrapping(client)).serverVersion()).startsWith("v1.");
            }
        } finally {
            api.requireBearerToken(null);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private static String exec(String apiVersion, String command, boolean clusterInfo, String installHint) {
        return """
                exec:
                  apiVersion: %s
                  command: %s
                  args: ["--cluster", "lab"]
                  env:
                  - name: NODEGATE_TEST_ENV
                    value: "yes"
                  provideClusterInfo: %s
                  interactiveMode: Never
                """.formatted(apiVersion, command, clusterInfo)
                + (installHint == null ? "" : "  installHint: " + installHint + "\n");
    }

    private static Path script(String name, String body) throws IOException {
        Path file = tmp.resolve(name);
        Files.writeString(file, body, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }

    /** PEM text as the inside of a JSON string, for a printf format. */
    private static String json(String pem) {
        return pem.replace("\n", "\\\\n");
    }
}
