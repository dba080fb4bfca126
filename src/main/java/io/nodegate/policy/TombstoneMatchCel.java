package io.nodegate.policy;

import io.nodegate.model.HostIdentity;
import io.nodegate.model.TombstoneBook;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one CEL reading of a tombstones shard that the quarantine ({@link QuarantinePolicy}) and the newcomer hold
 * ({@link NewcomerHoldPolicy}) share: which of a registering Node's name, systemUUID and machineID a shard tombstones,
 * with the same rule as the Java matcher {@code Tombstone.matchOf} (what NG302 and the watch's hold use).
 * <ul>
 *   <li>Identities are normalised by {@link HostIdentity}'s rule, built from the very patterns the Java matchers
 *       use.</li>
 *   <li>A name that existed, sharing an identity, when every tombstone with it was written is exempt from that
 *       identity (the shard's {@code exempt.*} keys).</li>
 *   <li>A machineID is a match only while the systemUUIDs do not contradict it: the Node reports none, or a
 *       tombstone with that machineID recorded none or the Node's own. VMs built from the removed host's image or
 *       template carry its /etc/machine-id under their own firmware UUIDs without being it; the returning host
 *       itself still carries its systemUUID, which matches on its own.</li>
 * </ul>
 * The variables are given in the order they must be declared (a CEL variable may read only those before it); each
 * policy turns them into its own API version's Variable type.
 */
final class TombstoneMatchCel {

    private TombstoneMatchCel() {
    }

    /**
     * The variables {@code systemUUID}, {@code machineID}, {@code ledger}, {@code byName}, {@code uuidExempt},
     * {@code machineIDExempt}, {@code byUUID} and {@code byMachineID}, by name in declaration order.
     *
     * @param ledger a CEL condition true when {@code params} is a tombstones shard with data (the hold also binds the
     *               inventory as a param, which is never read as a ledger)
     */
    static Map<String, String> variables(String ledger) {
        String node = CelLiteral.quote(TombstoneBook.NODE_PREFIX);
        String uuidKey = CelLiteral.quote(TombstoneBook.SYSTEM_UUID_PREFIX);
        String midKey = CelLiteral.quote(TombstoneBook.MACHINE_ID_PREFIX);
        String exempt = CelLiteral.quote(TombstoneBook.EXEMPT_PREFIX);
        Map<String, String> v = new LinkedHashMap<>();
        v.put("systemUUID", identity("systemUUID"));
        v.put("machineID", identity("machineID"));
        v.put("ledger", ledger);
        v.put("byName", "variables.ledger && " + node + " + object.metadata.name in params.data");
        v.put("uuidExempt", exemption("systemUUID", uuidKey, exempt));
        v.put("machineIDExempt", exemption("machineID", midKey, exempt));
        v.put("byUUID", "variables.ledger && variables.systemUUID != '' && " + uuidKey
                + " + variables.systemUUID in params.data && !variables.uuidExempt");
        // For a tombstoned machineID on a Node that reports a systemUUID: some tombstone listed under the machineID
        // recorded the same systemUUID (then the machineID matters where that systemUUID is exempt), or none at all
        // (the scan over the shard's systemuuid keys, run only in this rare case).
        String sameUuid = uuidKey + " + variables.systemUUID";
        v.put("byMachineID", "variables.ledger && variables.machineID != '' && " + midKey
                + " + variables.machineID in params.data && !variables.machineIDExempt"
                + " && (variables.systemUUID == ''"
                + " || params.data[" + midKey + " + variables.machineID].split(' ').exists(t,"
                + " (" + sameUuid + " in params.data && t in params.data[" + sameUuid + "].split(' '))"
                + " || !params.data.exists(k, k.startsWith(" + uuidKey + ") && t in params.data[k].split(' '))))");
        return v;
    }

    /**
     * status.nodeInfo.FIELD by {@link HostIdentity}'s rule (trimmed of ASCII whitespace, lower case), or '' when the
     * Node has none or it identifies nothing.
     */
    private static String identity(String field) {
        String path = "object.status.nodeInfo." + field;
        return "has(object.status) && has(object.status.nodeInfo) && has(" + path + ")"
                + " && " + path + ".matches(" + CelLiteral.quote(HostIdentity.SHAPE) + ")"
                + " && !" + path + ".trim().matches(" + CelLiteral.quote(HostIdentity.NO_IDENTITY) + ")"
                + " ? " + path + ".trim().lowerAscii() : ''";
    }

    /** Whether the Node's name is one that existed, sharing this identity, when every tombstone with it was written. */
    private static String exemption(String variable, String indexKey, String exemptPrefix) {
        String key = exemptPrefix + " + " + indexKey + " + variables." + variable;
        return "variables." + variable + " != '' && has(params.data) && " + key + " in params.data"
                + " && object.metadata.name in params.data[" + key + "].split(' ')";
    }
}
