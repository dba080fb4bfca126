package io.nodegate.model;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The one rule by which a {@code status.nodeInfo.systemUUID} or {@code machineID} identifies a host. Every Java
 * matcher (tombstones and NG302, the fleet's host ledger and NG301, the gate's fleet check) goes through
 * {@link #normalise}, and the quarantine's CEL ({@code policy.QuarantinePolicy}) is built from the same two
 * patterns, {@link #SHAPE} and {@link #NO_IDENTITY}: before this, Java trimmed whitespace around a UUID and the CEL
 * did not, so NG302 reported a host the admission policy let in.
 *
 * <p>The rule:
 * <ol>
 *   <li>ASCII whitespace (space, tab, LF, CR, VT, FF) around the value is ignored. Only ASCII: every trim in play
 *       (Go's strings.TrimSpace under kube-apiserver's CEL, dev.cel's, Java's strip()) removes those, while
 *       they disagree on Unicode spaces, so a value with any other character around it is not an identity;</li>
 *   <li>what remains must be 1 to 128 letters, digits, {@code -}, {@code .} or {@code _}: what a ConfigMap key
 *       can hold (the quarantine looks identities up as keys), and all a DMI UUID (hex and dashes) or an
 *       /etc/machine-id (32 hex digits) ever is;</li>
 *   <li>it is compared in lower case (DMI prints the UUID in upper case; Redfish and tombstones use lower case);
 *       the value is ASCII by rule 2, so Java's and CEL's lower-casing agree;</li>
 *   <li>a value made only of {@code 0} and {@code -} identifies nothing: some boards report
 *       {@code 00000000-0000-0000-0000-000000000000}, and two hosts with it are not one host. Empty too.</li>
 * </ol>
 */
public final class HostIdentity {

    /** The ASCII whitespace every trim implementation removes. */
    private static final String SPACE = "[ \\t\\n\\x0B\\f\\r]";

    /**
     * The whole value (whitespace included) an identity may be: RE2 and java.util.regex read this string alike
     * (Java evaluates it with {@code matches()}, which anchors at both ends as RE2's {@code ^...$} does).
     */
    public static final String SHAPE = "^" + SPACE + "*[-._a-zA-Z0-9]{1,128}" + SPACE + "*$";

    /** A trimmed value that identifies nothing: only zeros and dashes (or nothing at all). */
    public static final String NO_IDENTITY = "^[-0]*$";

    private static final Pattern SHAPE_PATTERN = Pattern.compile(SHAPE);
    private static final Pattern NO_IDENTITY_PATTERN = Pattern.compile(NO_IDENTITY);

    private HostIdentity() {
    }

    /** The identity as compared and stored (trimmed, lower case), or null when the value identifies nothing. */
    public static String normalise(String raw) {
        if (raw == null || !SHAPE_PATTERN.matcher(raw).matches()) {
            return null;
        }
        String core = raw.strip();
        if (NO_IDENTITY_PATTERN.matcher(core).matches()) {
            return null;
        }
        return core.toLowerCase(Locale.ROOT);
    }

    /** Whether the value identifies a host at all. */
    public static boolean identifies(String raw) {
        return normalise(raw) != null;
    }

    /**
     * How a Node is the host that had {@code systemUuid} and {@code machineId}: "systemUUID", "machineID",
     * "systemUUID and machineID", or null when it is not that host. This follows a host across a rename, an
     * address change and a move to another cluster (docs/findings.md, "Host identity"); names never join hosts.
     */
    public static String match(String systemUuid, String machineId, NodeInfo node) {
        String uuid = normalise(systemUuid);
        String mid = normalise(machineId);
        boolean u = uuid != null && uuid.equals(normalise(node.systemInfo().systemUuid()));
        boolean m = mid != null && mid.equals(normalise(node.systemInfo().machineId()));
        return u && m ? "systemUUID and machineID" : u ? "systemUUID" : m ? "machineID" : null;
    }

    /** The Nodes among {@code nodes} that are the host with {@code systemUuid} and {@code machineId}. */
    public static List<NodeInfo> appearances(String systemUuid, String machineId, List<NodeInfo> nodes) {
        return nodes.stream().filter(n -> match(systemUuid, machineId, n) != null).toList();
    }
}
