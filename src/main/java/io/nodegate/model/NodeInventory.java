package io.nodegate.model;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The hosts a cluster is declared to have: the ConfigMap {@value #CONFIGMAP} in nodegate's namespace (where the
 * tombstones ledger lives), one entry per expected host with the identities that survive a rename
 * ({@link HostIdentity}: firmware systemUUID and/or /etc/machine-id), its expected Node name, roles and InternalIP.
 * <pre>
 *   host.&lt;name&gt;            {"name":…,"systemUUID":…,"machineID":…,"roles":[…],"internalIP":…}
 *   systemuuid.&lt;id&gt;       the names of the hosts declared with that systemUUID, space-separated
 *   machineid.&lt;id&gt;        the same for the machineID
 * </pre>
 * The index keys are for an admission policy, whose CEL cannot parse the JSON entries; Java reads the entries.
 *
 * <p>Why a ConfigMap and not a custom resource: it exists in every cluster (no CRD to install before the first
 * audit), it is read by the same LIST as the tombstones ledger (no new read, no new RBAC for the watch), and an
 * admission policy can take a ConfigMap as its parameter, as the quarantine already does with the ledger.
 *
 * <p>Identity is a judgement over both IDs (docs/findings.md, "Host identity"): a systemUUID another live Node also
 * reports, or a machineID several systemUUIDs report (an image's, {@link SharedMachineIds}), never places a Node in
 * the inventory on its own. A host declared by both IDs is placed only when both match, and then its name is the
 * tie-breaker between full clones.
 *
 * @param hosts    the declared hosts, sorted by name
 * @param problems entries that could not be read (left out of {@link #hosts}), in words
 */
public record NodeInventory(List<Host> hosts, List<String> problems) {

    public static final String CONFIGMAP = "nodegate-inventory";
    public static final String HOST_PREFIX = "host.";
    public static final String SYSTEM_UUID_PREFIX = "systemuuid.";
    public static final String MACHINE_ID_PREFIX = "machineid.";
    /** The label the inventory ConfigMap carries, for an admission policy's paramRef selector. */
    public static final String LABEL = "nodegate.io/inventory";
    public static final String LABEL_VALUE = "hosts";
    /**
     * The most a ConfigMap's keys and values may hold together: the API server refuses a longer one
     * (Kubernetes pkg/apis/core/validation ValidateConfigMap, against core.MaxSecretSize, 1 MiB).
     */
    public static final int CONFIGMAP_LIMIT_BYTES = 1024 * 1024;

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    public NodeInventory {
        hosts = hosts == null ? List.of()
                : hosts.stream().sorted(java.util.Comparator.comparing(Host::name)).toList();
        problems = problems == null ? List.of() : List.copyOf(problems);
    }

    /**
     * One expected host.
     *
     * @param name       the Node name it is expected under
     * @param systemUuid its firmware systemUUID ({@link HostIdentity#normalise}), or null when not declared
     * @param machineId  its /etc/machine-id, or null when not declared
     * @param roles      the node-role.kubernetes.io/* roles it is expected to carry, sorted
     * @param internalIp the InternalIP it is expected to report, or null
     */
    public record Host(String name, String systemUuid, String machineId, List<String> roles, String internalIp) {
        public Host {
            systemUuid = HostIdentity.normalise(systemUuid);
            machineId = HostIdentity.normalise(machineId);
            roles = roles == null ? List.of() : List.copyOf(new TreeSet<>(roles));
            internalIp = internalIp == null || internalIp.isBlank() ? null : internalIp.strip();
        }

        /** "systemUUID 4c4c… and machineID 9f2e…", as messages name the host's declared identity. */
        public String identity() {
            List<String> ids = new ArrayList<>();
            if (systemUuid != null) {
                ids.add("systemUUID " + systemUuid);
            }
            if (machineId != null) {
                ids.add("machineID " + machineId);
            }
            return ids.isEmpty() ? "no identity" : String.join(" and ", ids);
        }
    }

    /** Whether a ConfigMap of this name is the inventory. */
    public static boolean isInventory(String configMapName) {
        return CONFIGMAP.equals(configMapName);
    }

    /**
     * The inventory today's Nodes make ({@code nodegate inventory init}): every Node under its name, with the
     * identities it reports (an ID that identifies nothing is left out), its roles and first InternalIP.
     */
    public static NodeInventory of(List<NodeInfo> nodes) {
        List<Host> hosts = new ArrayList<>();
        for (NodeInfo n : nodes) {
            List<String> ips = n.internalIps();
            hosts.add(new Host(n.name(), n.systemInfo().systemUuid(), n.systemInfo().machineId(),
                    List.copyOf(n.roles()), ips.isEmpty() ? null : ips.get(0)));
        }
        return new NodeInventory(hosts, List.of());
    }

    /** The inventory a ConfigMap's data holds; an unreadable entry is named in {@link #problems()}, not thrown. */
    public static NodeInventory parse(Map<String, String> data) {
        List<Host> hosts = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        if (data == null) {
            return new NodeInventory(hosts, problems);
        }
        for (Map.Entry<String, String> e : new TreeMap<>(data).entrySet()) {
            if (!e.getKey().startsWith(HOST_PREFIX)) {
                continue; // the index keys are derived from the entries: the entries are the truth
            }
            String key = e.getKey();
            String name = key.substring(HOST_PREFIX.length());
            try {
                JsonNode entry = JSON.readTree(e.getValue() == null ? "" : e.getValue());
                if (entry == null || !entry.isObject()) {
                    throw new IllegalArgumentException("not a JSON object");
                }
                String declared = text(entry, "name");
                if (declared != null && !declared.equals(name)) {
                    throw new IllegalArgumentException("its name is " + declared + ", its key says " + name);
                }
                List<String> roles = new ArrayList<>();
                JsonNode r = entry.path("roles");
                if (r.isArray()) {
                    r.forEach(x -> roles.add(x.asString()));
                } else if (!r.isMissingNode() && !r.isNull()) {
                    throw new IllegalArgumentException("roles is not a list");
                }
                Host h = new Host(name, text(entry, "systemUUID"), text(entry, "machineID"), roles,
                        text(entry, "internalIP"));
                if (h.systemUuid() == null && h.machineId() == null) {
                    throw new IllegalArgumentException("it declares neither a systemUUID nor a machineID that "
                            + "identifies a host");
                }
                hosts.add(h);
            } catch (RuntimeException ex) {
                problems.add("inventory entry " + key + " cannot be read (" + ex.getMessage()
                        + "): that host counts as undeclared");
            }
        }
        return new NodeInventory(hosts, problems);
    }

    private static String text(JsonNode entry, String field) {
        JsonNode v = entry.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    /** The ConfigMap data: the entries and the index keys, sorted. */
    public Map<String, String> data() {
        Map<String, String> data = new TreeMap<>();
        Map<String, TreeSet<String>> index = new TreeMap<>();
        for (Host h : hosts) {
            ObjectNode entry = JSON.createObjectNode();
            entry.put("name", h.name());
            entry.put("systemUUID", h.systemUuid());
            entry.put("machineID", h.machineId());
            ArrayNode roles = entry.putArray("roles");
            h.roles().forEach(roles::add);
            entry.put("internalIP", h.internalIp());
            data.put(HOST_PREFIX + h.name(), JSON.writeValueAsString(entry));
            if (h.systemUuid() != null) {
                index.computeIfAbsent(SYSTEM_UUID_PREFIX + h.systemUuid(), k -> new TreeSet<>()).add(h.name());
            }
            if (h.machineId() != null) {
                index.computeIfAbsent(MACHINE_ID_PREFIX + h.machineId(), k -> new TreeSet<>()).add(h.name());
            }
        }
        index.forEach((k, names) -> data.put(k, String.join(" ", names)));
        return data;
    }

    /** How long {@link #data} is as the API server counts a ConfigMap: every key's and value's length in bytes. */
    public long dataBytes() {
        long bytes = 0;
        for (Map.Entry<String, String> e : data().entrySet()) {
            bytes += e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                    + e.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }
        return bytes;
    }

    public java.util.Optional<Host> host(String name) {
        return hosts.stream().filter(h -> h.name().equals(name)).findFirst();
    }

    /** Where a Node stands against the inventory. */
    public enum Standing {
        /** A declared host's identities match, unshared or both declared, under its declared name. */
        DECLARED,
        /** A declared host's identities match, but the Node has another name than the one declared. */
        OTHER_NAME,
        /** Only an identity that another live Node or an image shares matches: never enough. */
        SHARED_ONLY,
        /** No declared host carries its identities. */
        UNDECLARED
    }

    /**
     * @param standing where the Node stands
     * @param host     the declared host it matched (null when {@link Standing#UNDECLARED})
     * @param reason   in words, for findings and the accept check
     */
    public record Judgement(Standing standing, Host host, String reason) {
        public boolean declared() {
            return standing == Standing.DECLARED;
        }
    }

    /**
     * Where {@code node} stands, judged among {@code nodes} (the cluster's live Nodes, the node itself included).
     * For many Nodes, take {@link #placer} once and ask it.
     */
    public Judgement judge(NodeInfo node, List<NodeInfo> nodes) {
        return placer(nodes).judge(node);
    }

    /** Judges Nodes among {@code nodes}; what is shared is counted once. */
    public Placer placer(List<NodeInfo> nodes) {
        return new Placer(nodes);
    }

    /**
     * Every identity a host declares must match; one declared alone must not be shared: a systemUUID another Node
     * (another name) reports too (cloned VMs, or the other half of a renamed host) or a machineID seen with several
     * systemUUIDs or on several Nodes (an image's) places nothing.
     */
    public final class Placer {
        private final SharedMachineIds images;
        private final Map<String, Integer> uuidCount = new java.util.HashMap<>();
        private final Map<String, Integer> midCount = new java.util.HashMap<>();
        private final Map<String, List<Host>> byUuid = new java.util.HashMap<>();
        private final Map<String, List<Host>> byMid = new java.util.HashMap<>();

        private Placer(List<NodeInfo> nodes) {
            images = new SharedMachineIds().addAll(nodes, null);
            for (NodeInfo n : nodes) {
                String u = HostIdentity.normalise(n.systemInfo().systemUuid());
                String m = HostIdentity.normalise(n.systemInfo().machineId());
                if (u != null) {
                    uuidCount.merge(u, 1, Integer::sum);
                }
                if (m != null) {
                    midCount.merge(m, 1, Integer::sum);
                }
            }
            for (Host h : hosts) {
                if (h.systemUuid() != null) {
                    byUuid.computeIfAbsent(h.systemUuid(), k -> new ArrayList<>()).add(h);
                }
                if (h.machineId() != null) {
                    byMid.computeIfAbsent(h.machineId(), k -> new ArrayList<>()).add(h);
                }
            }
        }

        /** Where one of the Nodes stands. */
        public Judgement judge(NodeInfo node) {
            String uuid = HostIdentity.normalise(node.systemInfo().systemUuid());
            String mid = HostIdentity.normalise(node.systemInfo().machineId());
            boolean uuidShared = uuid != null && uuidCount.getOrDefault(uuid, 0) > 1;
            boolean midShared = mid != null && (images.isImage(mid) || midCount.getOrDefault(mid, 0) > 1);
            java.util.Set<Host> candidates = new java.util.LinkedHashSet<>();
            candidates.addAll(uuid == null ? List.of() : byUuid.getOrDefault(uuid, List.of()));
            candidates.addAll(mid == null ? List.of() : byMid.getOrDefault(mid, List.of()));
            Host otherName = null;
            Host sharedOnly = null;
            String sharedWhy = null;
            for (Host h : candidates.stream().sorted(java.util.Comparator.comparing(Host::name)).toList()) {
                boolean uuidOk = h.systemUuid() == null || h.systemUuid().equals(uuid);
                boolean midOk = h.machineId() == null || h.machineId().equals(mid);
                if (!uuidOk || !midOk) {
                    continue;
                }
                boolean both = h.systemUuid() != null && h.machineId() != null;
                boolean enough = both || (h.systemUuid() != null ? !uuidShared : !midShared);
                if (!enough) {
                    if (sharedOnly == null) {
                        sharedOnly = h;
                        sharedWhy = h.systemUuid() != null
                                ? "systemUUID " + uuid + " is reported by another Node too (cloned VMs, or a renamed host)"
                                : "machineID " + mid + " is shared (an image's, or another Node's)";
                    }
                    continue;
                }
                if (h.name().equals(node.name())) {
                    return new Judgement(Standing.DECLARED, h, "declared as " + h.name() + " by " + h.identity());
                }
                otherName = otherName == null ? h : otherName;
            }
            if (otherName != null) {
                return new Judgement(Standing.OTHER_NAME, otherName, "its " + otherName.identity()
                        + " is declared for " + otherName.name() + ", not for " + node.name());
            }
            if (sharedOnly != null) {
                return new Judgement(Standing.SHARED_ONLY, sharedOnly, "only a shared identity matches host "
                        + sharedOnly.name() + " (" + sharedWhy + "), and a shared ID places no host: declare it by "
                        + "both systemUUID and machineID");
            }
            return new Judgement(Standing.UNDECLARED, null, uuid == null && mid == null
                    ? "it reports no systemUUID or machineID that identifies a host"
                    : "no declared host has " + (uuid == null ? "" : "systemUUID " + uuid)
                    + (uuid != null && mid != null ? " or " : "") + (mid == null ? "" : "machineID " + mid));
        }
    }

    /** Where the declared host differs from its Node (roles, InternalIP), in words; empty when it does not. */
    public static List<String> drift(Host h, NodeInfo node) {
        List<String> drift = new ArrayList<>();
        List<String> roles = List.copyOf(node.roles());
        if (!roles.equals(h.roles())) {
            drift.add("roles " + roles + ", declared " + h.roles());
        }
        if (h.internalIp() != null && !node.internalIps().contains(h.internalIp())) {
            drift.add("InternalIP " + node.internalIps() + ", declared " + h.internalIp());
        }
        return drift;
    }

    /**
     * The declared hosts that have a Node: one under the declared name, or one whose identities place it on the host
     * under another name ({@link Standing#OTHER_NAME}). A Node that only shares an identity stands for no host.
     */
    public java.util.Set<String> present(List<NodeInfo> nodes) {
        java.util.Set<String> present = new java.util.HashSet<>();
        Placer placer = placer(nodes);
        for (NodeInfo n : nodes) {
            present.add(n.name());
            Judgement j = placer.judge(n);
            if (j.standing() == Standing.DECLARED || j.standing() == Standing.OTHER_NAME) {
                present.add(j.host().name());
            }
        }
        present.retainAll(hosts.stream().map(Host::name).toList());
        return present;
    }
}
