package io.nodegate.detect.registry;

/**
 * Where a detector runs: the command (or the watch) whose report carries its findings. One detector can run in
 * several (NG302 in audit, fleet and the watch). {@link #BMC} is not a command: it marks the detectors that judge
 * what the hosts' BMCs said, which audit and the watch run only when BMCs were asked (--bmc).
 */
public enum Scope {
    /** `nodegate audit`, over one snapshot. */
    AUDIT,
    /** `nodegate etcd`, over the etcd endpoints' answers and the Nodes. */
    ETCD,
    /** `nodegate views`, over several apiservers' views of one cluster. */
    VIEWS,
    /** `nodegate redundancy`, over the control-plane roles counted from one snapshot. */
    REDUNDANCY,
    /** `nodegate fleet`, across clusters. */
    FLEET,
    /** Needs BMC readings: run only with --bmc. */
    BMC,
    /** `nodegate probe apiservers` and `nodegate probe kubelet` (and audit --probe-kubelets), over what was probed. */
    PROBE,
    /** `nodegate watch`, over the informers' snapshot at each pass. */
    WATCH,
    /** `nodegate rejoin-risk` and `verify-gone`, over the ways back in read for each removed host. */
    REJOIN
}
