package io.nodegate.detect.fleet;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;
import java.util.TreeSet;

/**
 * One host as the ledger knows it: every Node object, in every cluster read, that carries one of its identities.
 *
 * @param systemUuids  the meaningful systemUUIDs its appearances report (normally one)
 * @param machineIds   the meaningful machineIDs its appearances report (normally one)
 * @param match        why the appearances are one host: "systemUUID and machineID", "machineID" (only /etc/machine-id
 *                     matches, the firmware UUID unknown on one side) or "systemUUID" (only the firmware UUID
 *                     matches: cloned VMs with a copied UUID, a host whose OS was reinstalled, or a machineID that
 *                     is an image's, which never counts as a match: {@link HostLedger})
 * @param appearances  oldest Node first
 */
@JsonPropertyOrder({"systemUUIDs", "machineIDs", "match", "clusters", "appearances"})
public record Host(List<String> systemUuids, List<String> machineIds, String match, List<HostAppearance> appearances) {

    public static final String BOTH = "systemUUID and machineID";
    public static final String MACHINE_ID = "machineID";
    public static final String SYSTEM_UUID = "systemUUID";

    public Host {
        systemUuids = List.copyOf(systemUuids);
        machineIds = List.copyOf(machineIds);
        appearances = List.copyOf(appearances);
    }

    @com.fasterxml.jackson.annotation.JsonProperty("systemUUIDs")
    public List<String> systemUuids() {
        return systemUuids;
    }

    @com.fasterxml.jackson.annotation.JsonProperty("machineIDs")
    public List<String> machineIds() {
        return machineIds;
    }

    /** The clusters it appears in, sorted. */
    public List<String> clusters() {
        return List.copyOf(new TreeSet<>(appearances.stream().map(HostAppearance::cluster).toList()));
    }

    @JsonIgnore
    public boolean inSeveralClusters() {
        return clusters().size() > 1;
    }

    /** The identity to show for the host: its systemUUID, else its machineID. */
    @JsonIgnore
    public String displayId() {
        return !systemUuids.isEmpty() ? systemUuids.get(0) : !machineIds.isEmpty() ? machineIds.get(0) : "-";
    }

    /**
     * True when the appearances report different IDs of one kind: one ID ties them while the other, known on both
     * sides, differs. The ledger then cannot tell one moved host from two machines (docs/findings.md, "Host
     * identity"): only the firmware UUID matching is a reinstalled host or VMs cloned with a copied UUID; only the
     * machineID matching is VMs cloned from one image without a new /etc/machine-id, or a disk moved to other
     * hardware. Such a host is never critical on its own.
     */
    @JsonIgnore
    public boolean idsDisagree() {
        return systemUuids.size() > 1 || machineIds.size() > 1;
    }

    /** Why the IDs disagree, in words; empty when they do not. */
    @JsonIgnore
    public String disagreement() {
        if (machineIds.size() > 1 && systemUuids.size() > 1) {
            return "the Nodes are tied only through a chain of shared IDs (both systemUUIDs and machineIDs differ"
                    + " between some of them)";
        }
        if (machineIds.size() > 1) {
            return "only the systemUUID matches (machineIDs differ): a reinstalled host, or cloned VMs with a copied"
                    + " firmware UUID";
        }
        if (systemUuids.size() > 1) {
            return "only the machineID matches (systemUUIDs differ): VMs cloned from one image without a new"
                    + " /etc/machine-id, or a disk moved to other hardware";
        }
        return "";
    }
}
