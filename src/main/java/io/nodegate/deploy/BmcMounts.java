package io.nodegate.deploy;

import io.nodegate.InputException;

import java.util.regex.Pattern;

/**
 * What `install --bmc-*` mounts into the watch so it reads the hosts' BMCs (docs/bmc.md, "In the watch"): the
 * inventory from a ConfigMap, the credentials from a {@code kubernetes.io/basic-auth} Secret mounted as files (the
 * watch reads the directory; the password never passes through an argument, an environment variable or the
 * manifests), and optionally the BMCs' CA bundle from a ConfigMap. All three live in the watch's namespace, where
 * the admin creates them; install names them and never holds their contents.
 *
 * @param inventoryConfigMap ConfigMap with key {@value #INVENTORY_KEY} (the `--bmc-inventory` file)
 * @param credentialsSecret  basic-auth Secret (keys username, password)
 * @param caConfigMap        ConfigMap with key {@value #CA_KEY} (PEM), or null: the JDK's trust store
 */
public record BmcMounts(String inventoryConfigMap, String credentialsSecret, String caConfigMap) {

    public static final String INVENTORY_KEY = "inventory.yaml";
    public static final String CA_KEY = "ca.crt";
    public static final String INVENTORY_DIR = "/etc/nodegate/bmc";
    public static final String CREDENTIALS_DIR = "/etc/nodegate/bmc-credentials";
    public static final String CA_DIR = "/etc/nodegate/bmc-ca";

    /** An object name (apimachinery IsDNS1123Subdomain). */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

    public BmcMounts {
        if (inventoryConfigMap == null || credentialsSecret == null) {
            throw new InputException("--bmc-inventory-configmap and --bmc-credentials-secret go together: the watch "
                    + "needs the list of BMCs and the user to read them with");
        }
        check("--bmc-inventory-configmap", inventoryConfigMap);
        check("--bmc-credentials-secret", credentialsSecret);
        if (caConfigMap != null) {
            check("--bmc-ca-configmap", caConfigMap);
        }
    }

    /**
     * The flags of `install` as given, or null when none was: the CA alone, or one of the pair alone, is a usage
     * error naming the missing flag.
     */
    public static BmcMounts of(String inventoryConfigMap, String credentialsSecret, String caConfigMap) {
        if (inventoryConfigMap == null && credentialsSecret == null) {
            if (caConfigMap != null) {
                throw new InputException("--bmc-ca-configmap was given without --bmc-inventory-configmap and "
                        + "--bmc-credentials-secret");
            }
            return null;
        }
        return new BmcMounts(inventoryConfigMap, credentialsSecret, caConfigMap);
    }

    /** The watch's arguments that read what is mounted. */
    public java.util.List<String> watchArgs() {
        var args = new java.util.ArrayList<>(java.util.List.of(
                "--bmc-inventory", INVENTORY_DIR + "/" + INVENTORY_KEY,
                "--bmc-credentials", CREDENTIALS_DIR));
        if (caConfigMap != null) {
            args.add("--bmc-ca");
            args.add(CA_DIR + "/" + CA_KEY);
        }
        return args;
    }

    private static void check(String flag, String name) {
        if (name.length() > 253 || !NAME.matcher(name).matches()) {
            throw new InputException(flag + " '" + name + "' is not an object name (lower-case letters, digits, '-' "
                    + "and '.', at most 253 characters)");
        }
    }
}
