package io.nodegate.lifecycle.gate;

import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.model.NodeInfo;

import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * Whether an etcd member is a given node, as k3s and RKE2 name and mark their members. k3s-io/k3s
 * {@code pkg/etcd/etcd.go} {@code setName}: a member is named {@code <node name>-<first 8 chars of a uuid>} (older
 * releases: the short hostname, the part before the first dot, instead of the node name), and the Node carries
 * {@code etcd.<program>.cattle.io/node-name} and {@code node-address} ({@code NodeNameAnnotation},
 * {@code NodeAddressAnnotation}: {@code "etcd." + version.Program + ".cattle.io/..."}, so {@code etcd.rke2.cattle.io/...}
 * on RKE2 and {@code etcd.k3s.cattle.io/...} on k3s). A worker that once ran a server with a server token is a
 * member too, found by its peer address. Names are matched as a prefix ({@code <node>-…}): a member of another node
 * whose name only starts the same way is a false alarm on the safe side.
 */
public final class EtcdMembership {

    public static final List<String> MEMBER_NAME_ANNOTATIONS = List.of("etcd.rke2.cattle.io/node-name",
            "etcd.k3s.cattle.io/node-name");
    public static final List<String> MEMBER_ADDRESS_ANNOTATIONS = List.of("etcd.rke2.cattle.io/node-address",
            "etcd.k3s.cattle.io/node-address");

    /** The random suffix k3s appends: "-" and the first 8 characters of a uuid. */
    private static final java.util.regex.Pattern K3S_SUFFIX = java.util.regex.Pattern.compile(".*-[0-9a-f]{8}");

    private EtcdMembership() {
    }

    /** Who a node is to etcd: its name, the member name its annotations record, and every address it had. */
    public record Identity(String nodeName, Collection<String> memberNames, Collection<String> addresses) {

        public static Identity of(NodeInfo node, Baseline.Target atBaseline) {
            TreeSet<String> names = new TreeSet<>();
            TreeSet<String> addresses = new TreeSet<>(node.internalIps());
            for (String key : MEMBER_NAME_ANNOTATIONS) {
                if (node.annotation(key) != null && !node.annotation(key).isBlank()) {
                    names.add(node.annotation(key));
                }
            }
            for (String key : MEMBER_ADDRESS_ANNOTATIONS) {
                if (node.annotation(key) != null && !node.annotation(key).isBlank()) {
                    addresses.add(node.annotation(key));
                }
            }
            if (atBaseline != null) {
                addresses.addAll(atBaseline.internalIps());
            }
            return new Identity(node.name(), names, addresses);
        }

        /** A target known only from the baseline (its Node is gone). */
        public static Identity of(Baseline.Target target) {
            return new Identity(target.name(), List.of(), target.internalIps());
        }
    }

    /**
     * How the member names this node ("name ctl-3-4f1a9c2e", "peer address https://10.0.0.3:2380"), or null. Names
     * match as a prefix ({@code <node>-…}): used where a match keeps a node from passing, so a false match errs on
     * the safe side.
     */
    public static String how(Identity node, String memberName, List<String> peerUrls) {
        return how(node, memberName, peerUrls, false);
    }

    /**
     * Like {@link #how(Identity, String, List)}, but a name matches only as k3s builds it ({@code <node>-<8 hex>}):
     * used where a match excuses a change (a member gone since the baseline because it was this node's), so that
     * {@code ctl} never answers for {@code ctl-2}'s member.
     */
    public static String howExactly(Identity node, String memberName, List<String> peerUrls) {
        return how(node, memberName, peerUrls, true);
    }

    private static String how(Identity node, String memberName, List<String> peerUrls, boolean exact) {
        if (memberName != null && !memberName.isEmpty()) {
            if (node.memberNames().contains(memberName)) {
                return "name " + memberName + " (the Node's etcd node-name annotation)";
            }
            String shortName = node.nodeName().contains(".")
                    ? node.nodeName().substring(0, node.nodeName().indexOf('.')) : node.nodeName();
            boolean named = memberName.equals(node.nodeName()) || (exact
                    ? K3S_SUFFIX.matcher(memberName).matches() && (memberName.startsWith(node.nodeName() + "-")
                    && memberName.length() == node.nodeName().length() + 9
                    || memberName.startsWith(shortName + "-") && memberName.length() == shortName.length() + 9)
                    : memberName.startsWith(node.nodeName() + "-") || memberName.startsWith(shortName + "-"));
            if (named) {
                return "name " + memberName;
            }
        }
        for (String url : peerUrls) {
            if (node.addresses().contains(host(url))) {
                return "peer address " + url;
            }
        }
        return null;
    }

    /** True when the Node says it runs etcd: the etcd role label, or the member annotations k3s/RKE2 write. */
    public static boolean marksEtcd(NodeInfo node) {
        if (node.roles().contains("etcd")) {
            return true;
        }
        return MEMBER_NAME_ANNOTATIONS.stream().anyMatch(k -> node.annotation(k) != null)
                || MEMBER_ADDRESS_ANNOTATIONS.stream().anyMatch(k -> node.annotation(k) != null);
    }

    static String host(String url) {
        try {
            String host = URI.create(url.trim()).getHost();
            if (host == null) {
                return url;
            }
            return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        } catch (IllegalArgumentException e) {
            return url;
        }
    }
}
