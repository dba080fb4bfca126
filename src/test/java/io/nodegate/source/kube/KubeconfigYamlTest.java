package io.nodegate.source.kube;

import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.nodegate.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link KubeconfigYaml} copies a kubeconfig into fabric8's model without fabric8's Jackson reader (which costs
 * 0.3-0.4 s of CPU per run). These tests hold the copy to the reader: for kubeconfigs using every field client-go
 * defines (k8s.io/client-go tools/clientcmd/api/v1/types.go: Cluster, AuthInfo, Context, ExecConfig,
 * AuthProviderConfig), the model and the {@link Config} fabric8's {@link KubeConfigUtils#merge} makes of it are the
 * same as from {@link KubeConfigUtils#parseConfig}.
 */
class KubeconfigYamlTest {

    @TempDir
    Path tmp;

    /** Every field, the way kubectl writes them (absolute paths here; relative ones are compared after merging). */
    private static final String EVERY_FIELD = """
            apiVersion: v1
            kind: Config
            preferences: {}
            clusters:
            - name: rancher
              cluster:
                server: https://rancher.example/k8s/clusters/c-m-4x7bq2vd
                certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
                tls-server-name: kubernetes.default.svc
                proxy-url: socks5://127.0.0.1:1080
                disable-compression: true
            - name: lab
              cluster:
                server: "https://10.0.0.1:6443"
                insecure-skip-tls-verify: true
            - name: files
              cluster:
                server: https://10.0.0.2:6443
                certificate-authority: /etc/rancher/rke2/server-ca.crt
            users:
            - name: token
              user:
                token: kubeconfig-u-abc:xyz
            - name: basic
              user: {username: admin, password: not-a-secret}
            - name: cert
              user:
                client-certificate: /etc/rancher/rke2/client-admin.crt
                client-key: /etc/rancher/rke2/client-admin.key
            - name: cert-data
              user: {client-certificate-data: Q0VSVA==, client-key-data: S0VZ}
            - name: exec
              user:
                exec:
                  apiVersion: client.authentication.k8s.io/v1
                  command: kubelogin
                  args: [get-token, --oidc-issuer-url=https://sso.example]
                  env:
                  - {name: KUBECACHEDIR, value: /tmp/cache}
                  - {name: UNSET}
                  - {name: EMPTY, value: ""}
                  installHint: install kubelogin from https://github.com/int128/kubelogin
                  provideClusterInfo: true
                  interactiveMode: Never
            - name: oidc
              user:
                auth-provider:
                  name: oidc
                  config: {idp-issuer-url: "https://sso.example", client-id: k8s, id-token: eyJ.x.y}
            - name: impersonating
              user: {token: t, as: system:admin, as-uid: "1000", as-groups: [system:masters]}
            - name: file-token
              user: {tokenFile: /var/run/token}
            contexts:
            - name: rancher
              context: {cluster: rancher, user: token, namespace: cattle-system}
            - name: lab
              context: {cluster: lab, user: basic}
            - name: files
              context: {cluster: files, user: cert}
            current-context: rancher
            """;

    @Test
    void everyFieldIsCopiedAsFabric8sOwnReaderReadsIt() throws IOException {
        Path file = Files.writeString(tmp.resolve("config"), EVERY_FIELD);
        io.fabric8.kubernetes.api.model.Config theirs = KubeConfigUtils.parseConfig(file.toFile());
        io.fabric8.kubernetes.api.model.Config ours = KubeconfigYaml.read(file).config();

        assertThat(ours.getCurrentContext()).isEqualTo(theirs.getCurrentContext());
        assertThat(bodies(ours.getClusters(), NamedCluster::getName, NamedCluster::getCluster))
                .isEqualTo(bodies(theirs.getClusters(), NamedCluster::getName, NamedCluster::getCluster));
        assertThat(bodies(ours.getUsers(), NamedAuthInfo::getName, NamedAuthInfo::getUser))
                .isEqualTo(bodies(theirs.getUsers(), NamedAuthInfo::getName, NamedAuthInfo::getUser));
        assertThat(ours.getContexts()).extracting(c -> c.getName() + " " + c.getContext())
                .isEqualTo(theirs.getContexts().stream().map(c -> c.getName() + " " + c.getContext()).toList());
        for (String context : List.of("rancher", "lab", "files")) {
            assertThat(merged(context, ours)).as(context).isEqualTo(merged(context, theirs));
        }
    }

    @Test
    void relativePathsResolveAgainstTheirFileAsFabric8ResolvesThem() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("kube"));
        Files.createDirectories(dir.resolve("certs"));
        Files.writeString(dir.resolve("certs/ca.crt"), "ca");
        Files.writeString(dir.resolve("certs/admin.crt"), "crt");
        Files.writeString(dir.resolve("certs/admin.key"), "-----BEGIN EC PRIVATE KEY-----\n-----END EC PRIVATE KEY-----\n");
        Path file = Files.writeString(dir.resolve("config"), """
                clusters:
                - name: c
                  cluster: {server: "https://10.0.0.1:6443", certificate-authority: certs/ca.crt}
                users:
                - name: u
                  user: {client-certificate: certs/admin.crt, client-key: certs/admin.key}
                contexts:
                - name: x
                  context: {cluster: c, user: u}
                current-context: x
                """);
        List<String> ours = merged(null, KubeconfigYaml.read(file).config());
        assertThat(ours).isEqualTo(merged(null, KubeConfigUtils.parseConfig(file.toFile())));
        assertThat(ours).contains("caCertFile=" + dir.resolve("certs/ca.crt"), "clientKeyAlgo=EC");
    }

    @Test
    void theFirstFileToNameAnEntryWinsAsInFabric8sMerge() throws IOException {
        Path a = Files.writeString(tmp.resolve("a"), """
                clusters:
                - {name: shared, cluster: {server: "https://first:6443"}}
                contexts:
                - {name: one, context: {cluster: shared}}
                current-context: one
                """);
        Path b = Files.writeString(tmp.resolve("b"), """
                clusters:
                - {name: shared, cluster: {server: "https://second:6443"}}
                - {name: other, cluster: {server: "https://other:6443"}}
                contexts:
                - {name: one, context: {cluster: other}}
                - {name: two, context: {cluster: shared}}
                current-context: two
                """);
        io.fabric8.kubernetes.api.model.Config[] ours = {KubeconfigYaml.read(a).config(), KubeconfigYaml.read(b).config()};
        io.fabric8.kubernetes.api.model.Config[] theirs = {KubeConfigUtils.parseConfig(a.toFile()),
                KubeConfigUtils.parseConfig(b.toFile())};
        for (String context : new String[]{null, "one", "two"}) {
            assertThat(merged(context, ours)).as(String.valueOf(context)).isEqualTo(merged(context, theirs));
        }
        assertThat(merged("two", ours)).contains("masterUrl=https://first:6443/");
    }

    @Test
    void aFileThatIsNotAKubeconfigIsRefusedNamingTheFileAndTheKey() throws IOException {
        Path list = Files.writeString(tmp.resolve("list"), "- a\n- b\n");
        assertThatThrownBy(() -> KubeconfigYaml.read(list)).isInstanceOf(InputException.class)
                .hasMessage("cannot read kubeconfig " + list + ": the top level is not a mapping");
        Path clusters = Files.writeString(tmp.resolve("clusters"), "clusters: {name: c}\n");
        assertThatThrownBy(() -> KubeconfigYaml.read(clusters)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + clusters + ": 'clusters' is not a list");
        Path nameless = Files.writeString(tmp.resolve("nameless"), "users:\n- user: {token: t}\n");
        assertThatThrownBy(() -> KubeconfigYaml.read(nameless)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + nameless + ": an entry of 'users' has no name");
        Path flag = Files.writeString(tmp.resolve("flag"), "clusters:\n- {name: c, cluster: {server: \"https://x\", "
                + "insecure-skip-tls-verify: maybe}}\n");
        assertThatThrownBy(() -> KubeconfigYaml.read(flag)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + flag + ": cluster 'c': insecure-skip-tls-verify is 'maybe', not true or false");
        Path args = Files.writeString(tmp.resolve("args"), "users:\n- {name: u, user: {exec: {command: x, args: y}}}\n");
        assertThatThrownBy(() -> KubeconfigYaml.read(args)).isInstanceOf(InputException.class)
                .hasMessage("kubeconfig " + args + ": user 'u' exec: args is not a list");
        Path broken = Files.writeString(tmp.resolve("broken"), "clusters: [\n");
        assertThatThrownBy(() -> KubeconfigYaml.read(broken)).isInstanceOf(InputException.class)
                .hasMessageStartingWith("cannot read kubeconfig " + broken + ": not valid YAML");
        assertThat(KubeconfigYaml.read(Files.writeString(tmp.resolve("empty"), "\n")).config().getClusters())
                .isEmpty();
    }

    private static <T> List<String> bodies(List<T> entries, Function<T, String> name, Function<T, Object> body) {
        return entries.stream().map(e -> name.apply(e) + " " + body.apply(e)).toList();
    }

    /** What fabric8's merge makes of the files for a context: every field the reads and fabric8's client use. */
    private static List<String> merged(String context, io.fabric8.kubernetes.api.model.Config... files) {
        Config c = Config.empty();
        c.setOauthTokenProvider(() -> null); // keeps fabric8 from running the exec plugin while merging
        KubeConfigUtils.merge(c, context, files);
        return List.of("context=" + (c.getCurrentContext() == null ? null : c.getCurrentContext().getName()),
                "masterUrl=" + c.getMasterUrl(), "namespace=" + c.getNamespace(), "trustCerts=" + c.isTrustCerts(),
                "caCertFile=" + c.getCaCertFile(), "caCertData=" + c.getCaCertData(),
                "tlsServerName=" + c.getTlsServerName(), "httpProxy=" + c.getHttpProxy(),
                "httpsProxy=" + c.getHttpsProxy(), "clientCertFile=" + c.getClientCertFile(),
                "clientCertData=" + c.getClientCertData(), "clientKeyFile=" + c.getClientKeyFile(),
                "clientKeyData=" + c.getClientKeyData(), "clientKeyAlgo=" + c.getClientKeyAlgo(),
                "token=" + c.getAutoOAuthToken(), "username=" + c.getUsername(), "password=" + c.getPassword(),
                "authProvider=" + c.getAuthProvider());
    }
}
