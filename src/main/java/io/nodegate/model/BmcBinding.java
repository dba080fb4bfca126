package io.nodegate.model;

import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcReadings;
import io.nodegate.model.bmc.BmcSystem;
import io.nodegate.model.bmc.NodePower;
import io.nodegate.model.bmc.PowerEvent;
import io.nodegate.model.bmc.PowerVerdict;
import io.nodegate.model.NodeInfo;
import io.nodegate.model.NodeSystemInfo;

import io.nodegate.time.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Binds BMC systems to Nodes by identity: a ComputerSystem's {@code UUID} is the SMBIOS system UUID, the value the
 * kubelet reports as {@code status.nodeInfo.systemUUID}. Compared without case; an empty or all-zero UUID never binds
 * (some boards report zeros, and two such hosts are not one host). Some old firmware prints the first three groups
 * of the UUID in the other byte order (SMBIOS 2.6 made them little-endian): that is not a match, and the binding says
 * so, because a guess that binds the wrong machine is worse than no binding. A UUID that several systems carry
 * identifies none of them: reported once per UUID with every system carrying it; a Node whose systemUUID it is gets an
 * ambiguous (unreadable) verdict, and no other Node is touched (NVIDIA GB300 trays each list an {@code HGX_Baseboard_0}
 * with the same firmware-baked UUID, which no Node has). Pure.
 *
 * @param byNode     one verdict per Node, in the Nodes' order (empty when no BMC was read)
 * @param unbound    the systems that bound to no Node, each with why
 * @param duplicates each UUID carried by more than one system, with those systems and the Nodes claiming it
 */
public record BmcBinding(Map<String, NodePower> byNode, List<Unbound> unbound, List<DuplicateUuid> duplicates) {

    private static final Pattern UUID_SHAPE = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    public static final BmcBinding NONE = new BmcBinding(Map.of(), List.of(), List.of());

    public BmcBinding {
        byNode = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byNode));
        unbound = List.copyOf(unbound);
        duplicates = List.copyOf(duplicates);
    }

    /**
     * One UUID several systems report.
     *
     * @param uuid    the UUID as compared (lower case)
     * @param systems every system reporting it, in the order read
     * @param nodes   the Nodes whose systemUUID it is (empty: a fact to report, nothing is ambiguous)
     */
    public record DuplicateUuid(String uuid, List<BmcSystem> systems, List<String> nodes) {
        public DuplicateUuid {
            systems = List.copyOf(systems);
            nodes = List.copyOf(nodes);
        }

        /** "c01dc250-… is reported by 2 systems (https://a/redfish/v1/Systems/X, …); no Node has it". */
        public String describe() {
            return "UUID " + uuid + " is reported by " + systems.size() + " systems ("
                    + systems.stream().map(BmcSystem::source).collect(Collectors.joining(", ")) + "); "
                    + (nodes.isEmpty() ? "no Node has it: a UUID several machines share identifies none of them"
                    : "Node(s) " + String.join(", ", nodes) + " have it: ambiguous, nothing those systems say is used");
        }
    }

    /** A system no Node carries, and why ("no Node has this UUID", a byte-swapped near match, a conflict...). */
    public record Unbound(BmcSystem system, String why) {
    }

    public NodePower of(String node) {
        return byNode.get(node);
    }

    /**
     * What keeps these readings from being complete evidence: each BMC that failed, each UUID several systems report
     * that a Node has (that Node's binding is ambiguous). A run that has any is a failed collection (exit 3), whatever
     * else it found. A duplicate UUID no Node has is reported, not a problem: every Node's verdict stands without it.
     */
    public List<String> problems(BmcReadings readings) {
        List<String> out = new ArrayList<>();
        readings.failed().forEach(b -> out.add("BMC " + b.bmc() + ": " + b.error()));
        duplicates.stream().filter(d -> !d.nodes().isEmpty()).map(DuplicateUuid::describe).forEach(out::add);
        return out;
    }

    public static BmcBinding bind(List<NodeInfo> nodes, BmcReadings readings) {
        if (readings == null || !readings.read()) {
            return NONE;
        }
        Map<String, List<Claim>> claims = new LinkedHashMap<>();
        List<Unbound> unbound = new ArrayList<>();
        for (BmcReading reading : readings.bmcs()) {
            for (BmcSystem system : reading.systems()) {
                String uuid = normalize(system.uuid());
                if (uuid == null) {
                    unbound.add(new Unbound(system, "its UUID is " + (system.uuid() == null || system.uuid().isBlank()
                            ? "empty" : "all zeros (" + system.uuid() + ")") + ": it identifies no host"));
                } else {
                    claims.computeIfAbsent(uuid, k -> new ArrayList<>()).add(new Claim(reading, system));
                }
            }
        }
        Map<String, List<NodeInfo>> nodesByUuid = new LinkedHashMap<>();
        for (NodeInfo node : nodes) {
            String uuid = normalize(node.systemInfo().systemUuid());
            if (uuid != null) {
                nodesByUuid.computeIfAbsent(uuid, k -> new ArrayList<>()).add(node);
            }
        }
        List<String> failed = readings.failed().stream().map(r -> r.bmc() + " (" + r.error() + ")").toList();
        Map<String, NodePower> byNode = new LinkedHashMap<>();
        for (NodeInfo node : nodes) {
            byNode.putIfAbsent(node.name(), verdict(node, claims, failed, readings));
        }
        List<DuplicateUuid> duplicates = new ArrayList<>();
        for (Map.Entry<String, List<Claim>> e : claims.entrySet()) {
            if (e.getValue().size() > 1) {
                List<NodeInfo> claiming = nodesByUuid.getOrDefault(e.getKey(), List.of());
                duplicates.add(new DuplicateUuid(e.getKey(), e.getValue().stream().map(Claim::system).toList(),
                        claiming.stream().map(NodeInfo::name).toList()));
                for (Claim c : e.getValue()) {
                    unbound.add(new Unbound(c.system(), claiming.isEmpty() ? "UUID " + e.getKey() + " is reported by "
                            + e.getValue().size() + " systems and no Node has it: it identifies none of them"
                            : conflict(e.getKey(), e.getValue())));
                }
            } else if (!nodesByUuid.containsKey(e.getKey())) {
                BmcSystem system = e.getValue().get(0).system();
                String swapped = byteSwapped(e.getKey());
                List<NodeInfo> near = swapped == null ? null : nodesByUuid.get(swapped);
                unbound.add(new Unbound(system, near == null ? "no Node has systemUUID " + e.getKey()
                        : "no Node has systemUUID " + e.getKey() + "; Node " + near.get(0).name() + " has " + swapped
                        + ", the same bytes with the first three groups swapped (old firmware's byte order): not "
                        + "bound, since a guess could bind the wrong machine"));
            }
        }
        return new BmcBinding(byNode, unbound, duplicates);
    }

    private record Claim(BmcReading reading, BmcSystem system) {
    }

    private static NodePower verdict(NodeInfo node, Map<String, List<Claim>> claims, List<String> failed,
                                     BmcReadings readings) {
        String raw = node.systemInfo().systemUuid();
        String uuid = normalize(raw);
        if (uuid == null) {
            return new NodePower(node.name(), PowerVerdict.NOT_FOUND, null, null, null, "the Node reports "
                    + (raw == null || raw.isBlank() ? "no systemUUID" : "an all-zero systemUUID") + ": it cannot be "
                    + "bound to a BMC");
        }
        List<Claim> mine = claims.get(uuid);
        if (mine != null && mine.size() > 1) {
            return new NodePower(node.name(), PowerVerdict.UNREADABLE, null, null, null, conflict(uuid, mine));
        }
        if (mine != null) {
            return bound(node.name(), mine.get(0));
        }
        String swapped = byteSwapped(uuid);
        String near = swapped == null || !claims.containsKey(swapped) ? ""
                : "; " + claims.get(swapped).get(0).system().source() + " reports UUID " + swapped + ", the same bytes "
                + "with the first three groups swapped (old firmware's byte order): not bound";
        if (!failed.isEmpty()) {
            return new NodePower(node.name(), PowerVerdict.UNREADABLE, null, null, null, "no BMC read carries "
                    + "systemUUID " + uuid + ", but " + String.join(", ", failed) + " could not be read: it may be there"
                    + near);
        }
        int systems = readings.bmcs().stream().mapToInt(r -> r.systems().size()).sum();
        return new NodePower(node.name(), PowerVerdict.NOT_FOUND, null, null, null, "no BMC read carries systemUUID "
                + uuid + " (" + readings.bmcs().size() + " BMC(s), " + systems + " system(s) read)" + near);
    }

    private static NodePower bound(String node, Claim claim) {
        BmcSystem s = claim.system();
        PowerVerdict verdict = PowerVerdict.of(s.powerState());
        StringBuilder source = new StringBuilder(s.source()).append(' ')
                .append(s.powerState() == null ? "PowerState absent" : "PowerState=" + s.powerState());
        PowerEvent off = null;
        if (verdict == PowerVerdict.POWERED_OFF) {
            off = s.log() == null ? null : s.log().powerOff();
            if (off != null) {
                source.append("; last power-off: ").append(off.describe());
                Duration offset = claim.reading().clockOffset();
                if (offset != null && !offset.isZero()) {
                    source.append(" by the BMC's clock, which runs ").append(Durations.format(offset.abs()))
                            .append(offset.isNegative() ? " behind" : " ahead of").append(" nodegate's: ")
                            .append(claim.reading().onOurClock(off.created())).append(" on nodegate's");
                }
            } else {
                source.append("; power-off time unknown: ").append(s.log() == null ? "its log was not read"
                        : s.log().whyNoPowerOff() + "; " + s.log().describeLogs());
            }
        } else if (verdict == PowerVerdict.RUNNING && s.bootProgress() != null) {
            source.append("; BootProgress ").append(s.bootProgress())
                    .append(s.bootProgressTime() == null ? "" : " at " + s.bootProgressTime());
        } else if (verdict == PowerVerdict.TRANSITIONING && s.powerState() != null
                && !List.of("poweringon", "poweringoff", "paused").contains(s.powerState().toLowerCase(Locale.ROOT))) {
            source.append(" (not a PowerState DSP0268 defines)");
        }
        return new NodePower(node, verdict, s, claim.reading(), off, source.toString());
    }

    private static String conflict(String uuid, List<Claim> claims) {
        return "UUID " + uuid + " is claimed by " + claims.size() + " systems ("
                + claims.stream().map(c -> c.system().source()).collect(Collectors.joining(", "))
                + "): ambiguous, nothing they say is used for this Node";
    }

    /** The UUID as compared: lower case; null when it identifies nothing (empty, all zeros). */
    public static String normalize(String uuid) {
        return NodeSystemInfo.isMeaningfulId(uuid) ? uuid.strip().toLowerCase(Locale.ROOT) : null;
    }

    /**
     * The UUID with its first three groups byte-reversed (the other SMBIOS byte order), or null when it is not in the
     * 8-4-4-4-12 shape or reads the same either way.
     */
    static String byteSwapped(String uuid) {
        if (uuid == null || !UUID_SHAPE.matcher(uuid).matches()) {
            return null;
        }
        String swapped = reverseBytes(uuid.substring(0, 8)) + "-" + reverseBytes(uuid.substring(9, 13)) + "-"
                + reverseBytes(uuid.substring(14, 18)) + uuid.substring(18);
        return swapped.equals(uuid) ? null : swapped;
    }

    private static String reverseBytes(String hex) {
        StringBuilder out = new StringBuilder(hex.length());
        for (int i = hex.length() - 2; i >= 0; i -= 2) {
            out.append(hex, i, i + 2);
        }
        return out.toString();
    }
}
