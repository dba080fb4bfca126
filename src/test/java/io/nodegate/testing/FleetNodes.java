package io.nodegate.testing;

import java.util.StringJoiner;

/**
 * A fleet of registered Nodes with identities of full length (a Dell-style systemUUID of 36 characters, a 32-digit
 * machineID, an InternalIP, one role), for tests of what grows with the number of hosts, such as the inventory's
 * ConfigMap. Host {@code i}'s name, IDs and address are a function of {@code i}, so a test can name any of them.
 */
public final class FleetNodes {

    private FleetNodes() {
    }

    public static String name(int i) {
        return String.format("gpu-node-%05d", i);
    }

    /** As the kubelet reports it (upper case, as Dell firmware writes it). */
    public static String systemUuid(int i) {
        return String.format("4C4C4544-%04X-3010-8031-%012X", i, i);
    }

    public static String machineId(int i) {
        return String.format("%032x", 0xf1ee7L * 100_000 + i);
    }

    public static String internalIp(int i) {
        return String.format("10.%d.%d.%d", 100 + i / 65536, i / 256 % 256, i % 256);
    }

    /** One Ready worker Node as `kubectl get node -o json` prints it, with these name, IDs and InternalIP. */
    public static String node(String name, String systemUuid, String machineId, String internalIp) {
        return """
                {"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","uid":"uid-%s",
                 "creationTimestamp":"2026-10-26T07:02:11Z","labels":{"node-role.kubernetes.io/worker":"true"}},
                 "status":{"addresses":[{"type":"InternalIP","address":"%s"}],
                   "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",
                   "lastHeartbeatTime":"2026-10-26T07:40:00Z","lastTransitionTime":"2026-10-26T07:02:40Z"}],
                   "nodeInfo":{"systemUUID":"%s","machineID":"%s","bootID":"b-%s","kubeletVersion":"v1.34.3+rke2r3"}}}
                """.formatted(name, name, internalIp, systemUuid, machineId, name);
    }

    /** The first {@code count} hosts as `kubectl get nodes -o json` prints them. */
    public static String nodeList(int count) {
        StringJoiner items = new StringJoiner(",", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[", "]}");
        for (int i = 0; i < count; i++) {
            items.add(node(name(i), systemUuid(i), machineId(i), internalIp(i)));
        }
        return items.toString();
    }
}
