package io.nodegate.detect.controlplane;

/** Server components that k3s/RKE2 can switch off per server with a {@code --disable-<flag>} argument. */
public enum ControlPlaneComponent {
    APISERVER("apiserver"),
    SCHEDULER("scheduler"),
    CONTROLLER_MANAGER("controller-manager"),
    ETCD("etcd");

    private final String flagSuffix;

    ControlPlaneComponent(String flagSuffix) {
        this.flagSuffix = flagSuffix;
    }

    /** The server argument that disables it, e.g. {@code --disable-apiserver}. */
    public String disableFlag() {
        return "--disable-" + flagSuffix;
    }

    public String label() {
        return flagSuffix;
    }
}
