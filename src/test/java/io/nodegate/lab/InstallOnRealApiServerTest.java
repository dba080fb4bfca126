package io.nodegate.lab;

import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code nodegate install -o yaml} applied to a real kube-apiserver (a real RBAC authorizer), then the watch run with
 * the installed ServiceAccount's own token: the ClusterRole and Roles that install prints are enough for a full pass
 * (no 403 anywhere).
 */
@ExtendWith(RealControlPlane.Resolver.class)
class InstallOnRealApiServerTest {

    private static RealControlPlane lab;

    @BeforeAll
    static void install(RealControlPlane controlPlane) {
        lab = controlPlane;
        CliRun install = CliRun.run("install", "-o", "yaml", "--no-rancher", "--image", "registry.example/nodegate:lab");
        assertThat(install.exitCode()).as(install.all()).isZero();
        lab.kubectl(install.out(), "apply", "-f", "-").requireOk("kubectl apply of nodegate install -o yaml");
    }

    /** A kubeconfig for the ServiceAccount (its token goes into a 0600 file in the lab's directory, never to output). */
    private static Path serviceAccountKubeconfig() throws IOException {
        RealControlPlane.Result token = lab.kubectl(null, "create", "token", "nodegate-watch", "-n", "nodegate-system",
                "--duration=10m");
        assertThat(token.code()).as("kubectl create token (output withheld)").isZero();
        String server = lab.kubectl(null, "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
                .requireOk("server").output().trim();
        Path file = lab.dir().resolve("nodegate-watch.kubeconfig");
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: lab
                  cluster: {server: "%s", certificate-authority: "%s"}
                users:
                - name: nodegate-watch
                  user: {token: "%s"}
                contexts:
                - name: nodegate-watch
                  context: {cluster: lab, user: nodegate-watch, namespace: nodegate-system}
                current-context: nodegate-watch
                """.formatted(server, lab.dir().resolve("pki/ca.crt"), token.output().trim()));
        return file;
    }

    @Test
    void theWatchRunsAFullPassWithTheInstalledServiceAccountsTokenAndNo403() throws IOException {
        Path kubeconfig = serviceAccountKubeconfig();
        CliRun pass = CliRun.run("watch", "--once", "--kubeconfig", kubeconfig.toString(), "-n", "nodegate-system",
                "--sync-timeout", "60s");
        assertThat(pass.exitCode()).as(pass.all()).isIn(0, 1);
        // An apiserver's 403 always says "forbidden" (reason Forbidden, "... is forbidden: User ..."); the pass's
        // own output carries bootIDs and uids, where "403" can appear by chance.
        assertThat(pass.all()).doesNotContainIgnoringCase("forbidden");
        assertThat(pass.err()).doesNotContain("403");
        assertThat(pass.out()).contains(RealControlPlane.server(1));
    }
}
