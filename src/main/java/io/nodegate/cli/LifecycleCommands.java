package io.nodegate.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.nodegate.lifecycle.LifecycleSupport;

/** Shared plumbing for baseline/gate/remove/verify-gone/readmit. */
final class LifecycleCommands {
    private LifecycleCommands() {
    }

    static KubernetesClient connect(SourceOptions source) {
        var override = LifecycleSupport.clientOverride;
        if (override != null) {
            return override.get();
        }
        if (source.offline()) {
            throw new NodegateException(ExitCodes.USAGE,
                    "this command acts on a live cluster: -f/--filename dumps cannot be used");
        }
        return source.connect();
    }
}
