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
 * @param match        why the appearances are one host: "systemUUID and machineID", "machineID" or "systemUUID"
 *                     (only the firmware UUID matches: cloned VMs, or a host whose OS was reinstalled)
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
     * True when only the firmware UUID ties the appearances together and they report different machineIDs: the
     * ledger cannot tell a reinstalled host from cloned VMs that copied the UUID.
     */
    @JsonIgnore
    public boolean systemUuidOnly() {
        return SYSTEM_UUID.equals(match) && machineIds.size() > 1;
    }
}
