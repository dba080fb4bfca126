package io.nodegate.model;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Metadata of a Secret. There is deliberately no field for data: nodegate never keeps Secret values.
 */
public record SecretMeta(String namespace, String name, String uid, Instant created, String type,
                         Map<String, String> labels) {

    private static final Pattern NODE_PASSWORD = Pattern.compile("^(.+)\\.node-password\\.(k3s|rke2)$");

    public SecretMeta {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** The (lower-cased) node name a k3s/RKE2 node-password Secret belongs to, if this is one. */
    public Optional<String> nodePasswordOwner() {
        Matcher m = NODE_PASSWORD.matcher(name);
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }

    public static boolean isNodePasswordName(String name) {
        return NODE_PASSWORD.matcher(name).matches();
    }

    /** The Secret name k3s/RKE2 uses for a node: lower-cased node name. */
    public static String nodePasswordName(String nodeName, String distribution) {
        return nodeName.toLowerCase(Locale.ROOT) + ".node-password." + distribution;
    }
}
