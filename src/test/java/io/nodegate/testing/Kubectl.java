package io.nodegate.testing;

/**
 * kubectl, for its built-in kustomize (`kubectl kustomize`). It comes with this project's machine image (Google's
 * kubectl package); no package registry the project uses has a usable one (Debian 12's kubernetes-client is kubectl
 * 1.20 with kustomize v2.0.3, older than kustomize Components), so bin/test cannot install it.
 */
public final class Kubectl {

    private Kubectl() {
    }

    /** kubectl's path; skips the calling test when it is missing, fails instead under CI=true (like etcd). */
    public static String require() {
        return EtcdCluster.requireOnPath("kubectl",
                "kubectl (its built-in kustomize) is required in CI: it comes with the machine image",
                "kubectl not on PATH: skipping the kustomize build tests");
    }
}
