package io.nodegate.model;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Metadata of a Secret. There is deliberately no field for data: nodegate never keeps Secret values.
 */
public record SecretMeta(String namespace, String name, String uid, Instant created, String type,
                         Map<String, String> labels) {

    private static final String K3S_SUFFIX = ".node-password.k3s";
    private static final String RKE2_SUFFIX = ".node-password.rke2";

    public SecretMeta {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** The (lower-cased) node name a k3s/RKE2 node-password Secret belongs to, if this is one. */
    public Optional<String> nodePasswordOwner() {
        return Optional.ofNullable(owner(name));
    }

    public static boolean isNodePasswordName(String name) {
        return owner(name) != null;
    }

    /**
     * The owner part of {@code <owner>.node-password.(k3s|rke2)}, or null: exactly what the regex
     * {@code ^(.+)\.node-password\.(k3s|rke2)$} captures (a non-empty owner without line terminators, which
     * {@code .} does not match), written out because the watch asks it of every kube-system Secret on every pass.
     */
    private static String owner(String name) {
        if (name == null) {
            return null;
        }
        String owner = name.endsWith(K3S_SUFFIX) ? name.substring(0, name.length() - K3S_SUFFIX.length())
                : name.endsWith(RKE2_SUFFIX) ? name.substring(0, name.length() - RKE2_SUFFIX.length()) : null;
        if (owner == null || owner.isEmpty()) {
            return null;
        }
        for (int i = 0; i < owner.length(); i++) {
            char c = owner.charAt(i);
            if (c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                return null;
            }
        }
        return owner;
    }

    /** The Secret name k3s/RKE2 uses for a node: lower-cased node name. */
    public static String nodePasswordName(String nodeName, String distribution) {
        return nodeName.toLowerCase(Locale.ROOT) + ".node-password." + distribution;
    }
}
