package io.nodegate.cli;

import java.nio.file.Path;

/**
 * Where one view of the cluster comes from: a kubeconfig context (optionally of a given kubeconfig file), a
 * kubeconfig file with its current context, or a directory of saved dumps (offline).
 *
 * @param name       the column title, unique among the views of one run
 * @param kubeconfig kubeconfig file, null for the default chain ($KUBECONFIG, ~/.kube/config)
 * @param context    context name, null for the kubeconfig's current context
 * @param files      dump file or directory for an offline view; null for a live view
 */
public record ViewSpec(String name, Path kubeconfig, String context, Path files) {

    public boolean offline() {
        return files != null;
    }

    public String describe() {
        if (offline()) {
            return "-f " + files;
        }
        StringBuilder s = new StringBuilder();
        if (context != null) {
            s.append("--context ").append(context);
        }
        if (kubeconfig != null) {
            s.append(s.length() == 0 ? "" : " ").append("--kubeconfig ").append(kubeconfig);
        }
        return s.length() == 0 ? "current context" : s.toString();
    }
}
