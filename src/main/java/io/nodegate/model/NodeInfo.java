package io.nodegate.model;

import java.util.ArrayList;
import java.util.Collections;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.SortedSet;

/**
 * What a Node object says: the kubelet's last report, nothing more. Fields the object lacks are null
 * (or empty collections); a Node without status is still a Node. {@code cordonOwner} is who set
 * {@code spec.unschedulable} ({@link CordonOwner}): null when the Node is not cordoned, or when its managedFields
 * were not read (kubectl hides them unless asked with --show-managed-fields).
 */
public record NodeInfo(
        String name,
        String uid,
        String resourceVersion,
        Instant created,
        Map<String, String> labels,
        Map<String, String> annotations,
        List<Taint> taints,
        boolean unschedulable,
        String podCidr,
        List<NodeAddress> addresses,
        List<Condition> conditions,
        NodeSystemInfo systemInfo,
        Map<String, String> capacity,
        CordonOwner cordonOwner) {

    public static final String ROLE_PREFIX = "node-role.kubernetes.io/";
    public static final List<String> SERVER_ROLES = List.of("control-plane", "etcd", "master");

    public NodeInfo {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        taints = taints == null ? List.of() : List.copyOf(taints);
        addresses = addresses == null ? List.of() : List.copyOf(addresses);
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
        systemInfo = systemInfo == null ? NodeSystemInfo.EMPTY : systemInfo;
        capacity = capacity == null ? Map.of() : Map.copyOf(capacity);
    }

    /** A Node read without its managedFields (a kubectl dump, a test): who cordoned it is not known. */
    public NodeInfo(String name, String uid, String resourceVersion, Instant created, Map<String, String> labels,
                    Map<String, String> annotations, List<Taint> taints, boolean unschedulable, String podCidr,
                    List<NodeAddress> addresses, List<Condition> conditions, NodeSystemInfo systemInfo,
                    Map<String, String> capacity) {
        this(name, uid, resourceVersion, created, labels, annotations, taints, unschedulable, podCidr, addresses,
                conditions, systemInfo, capacity, null);
    }

    /** The cordon's reason ({@value CordonOwner#REASON_ANNOTATION}), or null when none is written or it is blank. */
    public String cordonReason() {
        String reason = annotations.get(CordonOwner.REASON_ANNOTATION);
        return reason == null || reason.isBlank() ? null : reason;
    }

    /** Role names from node-role.kubernetes.io/* labels, sorted. */
    public SortedSet<String> roles() {
        // plain loops in these accessors: detectors call them for every node on every pass of the watch
        SortedSet<String> roles = new TreeSet<>();
        for (String key : labels.keySet()) {
            if (key.length() > ROLE_PREFIX.length() && key.startsWith(ROLE_PREFIX)) {
                roles.add(key.substring(ROLE_PREFIX.length()));
            }
        }
        return roles;
    }

    public boolean isServer() {
        return roles().stream().anyMatch(SERVER_ROLES::contains);
    }

    public Condition condition(String type) {
        for (Condition c : conditions) {
            if (type.equals(c.type())) {
                return c;
            }
        }
        return null;
    }

    /** Ready as the API records it: "True", "False", "Unknown", or null when there is no Ready condition. */
    public String readyStatus() {
        Condition ready = condition("Ready");
        return ready == null ? null : ready.status();
    }

    public boolean isReady() {
        return "True".equals(readyStatus());
    }

    public List<String> internalIps() {
        List<String> ips = new ArrayList<>(2);
        for (NodeAddress a : addresses) {
            if ("InternalIP".equals(a.type())) {
                ips.add(a.address());
            }
        }
        return Collections.unmodifiableList(ips);
    }

    public String annotation(String key) {
        return annotations.get(key);
    }

    /** k3s/RKE2 agent arguments as recorded by the distribution (rke2.io/node-args or k3s.io/node-args). */
    public String nodeArgs() {
        String rke2 = annotations.get("rke2.io/node-args");
        return rke2 != null ? rke2 : annotations.get("k3s.io/node-args");
    }

    public record NodeAddress(String type, String address) {
    }
}
