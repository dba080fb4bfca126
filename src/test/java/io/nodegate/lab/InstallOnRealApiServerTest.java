package io.nodegate.lab;

import io.nodegate.deploy.WatchAccessDoc;
import io.nodegate.testing.CliRun;
import io.nodegate.testing.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code nodegate install -o yaml} and {@code kubectl apply -k deploy/kustomize} applied to a real kube-apiserver (a
 * real RBAC authorizer), then the watch run with the installed ServiceAccount's own token: the ClusterRole and Roles
 * are enough for a full pass (no 403 anywhere), and {@code kubectl auth can-i --list} for the ServiceAccount shows
 * exactly the permissions docs/watch-access.md lists, beyond what every authenticated identity has.
 *
 * <p>The methods run in order: first without Rancher's namespace (install --no-rancher; install without it is refused
 * for exactly the objects its note names), then with an empty cattle-system namespace made here, as Rancher would
 * have it, for the kustomize base; the namespace is deleted afterwards.
 */
@ExtendWith(RealControlPlane.Resolver.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InstallOnRealApiServerTest {

    private static final String SA = "system:serviceaccount:nodegate-system:nodegate-watch";
    /** A ServiceAccount name nothing binds: what any ServiceAccount of the namespace may do anyway. */
    private static final String NOBODY = "system:serviceaccount:nodegate-system:nodegate-nobody";
    private static final String CATTLE = "cattle-system";

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

    @AfterAll
    static void removeRancherNamespace() {
        if (lab != null) {
            lab.kubectl(null, "delete", "namespace", CATTLE, "--ignore-not-found", "--wait=false");
        }
    }

    @Test
    @Order(1)
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

    @Test
    @Order(2)
    void canIListShowsExactlyTheDocumentedPermissionsOfAnInstallWithoutRancher() {
        assertGrantsAreTheDocumented(false);
    }

    @Test
    @Order(3)
    void installWithoutNoRancherIsRefusedOnlyForTheObjectsItsNoteNames() {
        CliRun install = CliRun.run("install", "-o", "yaml", "--image", "registry.example.com/ops/nodegate:lab");
        assertThat(install.exitCode()).as(install.all()).isZero();
        RealControlPlane.Result dryRun = lab.kubectl(install.out(), "apply", "--dry-run=server", "-f", "-");
        assertThat(dryRun.code()).as(dryRun.output()).isNotZero();
        // what the apiserver refused: one line per object, each naming the missing namespace
        List<String> refused = dryRun.output().lines().filter(l -> l.startsWith("Error from server")).toList();
        assertThat(refused).hasSize(2)
                .allSatisfy(l -> assertThat(l).contains("namespaces \"" + CATTLE + "\" not found"));
        assertThat(install.err()).contains("Role nodegate-watch and RoleBinding nodegate-watch go into Rancher's "
                + "namespace cattle-system").contains("add --no-rancher");
    }

    @Test
    @Order(4)
    void theKustomizeBaseIsAcceptedWhereRancherIsAndGrantsExactlyTheDocumentedPermissions() throws IOException {
        lab.kubectl(null, "create", "namespace", CATTLE).requireOk("create namespace " + CATTLE);
        lab.kubectl(null, "apply", "-k", "deploy/kustomize").requireOk("kubectl apply -k deploy/kustomize");
        assertGrantsAreTheDocumented(true);
        // the Job informer now runs too (the namespace exists)
        theWatchRunsAFullPassWithTheInstalledServiceAccountsTokenAndNo403();
    }

    /** One permission as `kubectl auth can-i --list` shows it: resource or non-resource URL, one name, one verb. */
    record Grant(String group, String resource, String name, String verb) {
    }

    private static final Pattern ROW = Pattern.compile("^(\\S*)\\s+\\[([^\\]]*)]\\s+\\[([^\\]]*)]\\s+\\[([^\\]]*)]\\s*$");

    /**
     * Parses {@code kubectl auth can-i --list --no-headers}: kubectl 1.32 has no -o for it, so each row is matched as
     * "RESOURCE [URLS] [NAMES] [VERBS]" (the resource column is empty for non-resource URLs; lists are
     * space-separated inside brackets), not by column positions. A row that does not match fails the test.
     */
    static Set<Grant> canIList(String as, String namespace) {
        RealControlPlane.Result list = lab.kubectl(null, "auth", "can-i", "--list", "--no-headers", "--as=" + as,
                "-n", namespace).requireOk("kubectl auth can-i --list as " + as + " in " + namespace);
        Set<Grant> grants = new LinkedHashSet<>();
        for (String line : list.output().lines().filter(l -> !l.isBlank()).toList()) {
            Matcher m = ROW.matcher(line);
            assertThat(m.matches()).as("a row of kubectl auth can-i --list: '" + line + "'").isTrue();
            List<String> urls = words(m.group(2));
            List<String> names = words(m.group(3));
            for (String verb : words(m.group(4))) {
                if (m.group(1).isEmpty()) {
                    urls.forEach(u -> grants.add(new Grant("", u, "", verb)));
                    continue;
                }
                // RESOURCE[.GROUP][/SUBRESOURCE]: "leases.coordination.k8s.io", "nodehandovers.nodegate.io/status"
                String[] sub = m.group(1).split("/", 2);
                int dot = sub[0].indexOf('.');
                String resource = (dot < 0 ? sub[0] : sub[0].substring(0, dot)) + (sub.length > 1 ? "/" + sub[1] : "");
                String group = dot < 0 ? "" : sub[0].substring(dot + 1);
                for (String name : names.isEmpty() ? List.of("") : names) {
                    grants.add(new Grant(group, resource, name, verb));
                }
            }
        }
        return grants;
    }

    private static List<String> words(String bracketed) {
        return bracketed.isBlank() ? List.of() : List.of(bracketed.strip().split("\\s+"));
    }

    /** What docs/watch-access.md says the watch may do in {@code namespace} (cluster-wide rows count everywhere). */
    static Set<Grant> documented(String namespace, boolean rancher) {
        Set<Grant> grants = new LinkedHashSet<>();
        for (WatchAccessDoc.Row row : WatchAccessDoc.rows()) {
            boolean applies = row.onlyWith().isEmpty() || rancher && row.onlyWith().equals(WatchAccessDoc.RANCHER);
            if (!applies || row.namespace() != null && !row.namespace().equals(namespace)) {
                continue;
            }
            for (String verb : row.verbs()) {
                for (String name : row.names().isEmpty() ? List.of("") : row.names()) {
                    grants.add(new Grant(row.apiGroup(), row.resource(), name, verb));
                }
            }
        }
        return grants;
    }

    /**
     * In every namespace the page names, and one it does not: what the ServiceAccount may do beyond an unbound
     * ServiceAccount of the same namespace is within the page's rows, and every row is granted.
     */
    private static void assertGrantsAreTheDocumented(boolean rancher) {
        Set<String> namespaces = new LinkedHashSet<>(List.of("kube-public"));
        WatchAccessDoc.rows().stream().filter(r -> r.namespace() != null).forEach(r -> namespaces.add(r.namespace()));
        if (!rancher) {
            namespaces.remove(CATTLE);
        }
        List<String> problems = new ArrayList<>();
        for (String ns : namespaces) {
            Set<Grant> granted = canIList(SA, ns);
            Set<Grant> beyond = new LinkedHashSet<>(granted);
            beyond.removeAll(canIList(NOBODY, ns));
            Set<Grant> documented = documented(ns, rancher);
            beyond.removeAll(documented);
            Set<Grant> missing = new LinkedHashSet<>(documented);
            missing.removeAll(granted);
            if (!beyond.isEmpty()) {
                problems.add(ns + ": granted but not in docs/watch-access.md: " + beyond);
            }
            if (!missing.isEmpty()) {
                problems.add(ns + ": in docs/watch-access.md but not granted: " + missing);
            }
        }
        assertThat(problems).isEmpty();
    }
}
