package io.nodegate.model.host;

import java.time.Instant;
import java.util.List;

/**
 * What `nodegate host inspect` found on one machine: the facts no Kubernetes API shows (seed 000: "the signals
 * that tell shutdown from departure are all outside the cluster API"). Secrets are never part of it: the token
 * and the node password appear only as "set"/"present".
 *
 * @param kind           always {@link #KIND}
 * @param schemaVersion  {@link #SCHEMA_VERSION}; a reader refuses other versions
 * @param root           the directory the host was read under ("/" on the host itself)
 * @param distribution   rke2, k3s, rke2+k3s, or none
 * @param expectedServer the server(s) the host owner checked the report against (--expect-server), empty if none
 * @param removal        when the agent stopped or was removed, if the host shows it; null otherwise
 * @param sha256         sha256 of the report's canonical body (every field but this one, keys sorted, compact)
 */
public record HostReport(
        String kind,
        int schemaVersion,
        Instant inspectedAt,
        String root,
        String distribution,
        Identity identity,
        AgentConfig config,
        LoadBalancer loadBalancer,
        Presence nodePasswordFile,
        List<Service> services,
        Leftovers leftovers,
        Network network,
        List<String> expectedServer,
        Removal removal,
        HostVerdict verdict,
        List<String> verdictReasons,
        List<String> warnings,
        String sha256) {

    public static final String KIND = "nodegate.io/host-report";
    public static final int SCHEMA_VERSION = 1;

    public HostReport {
        services = services == null ? List.of() : List.copyOf(services);
        expectedServer = expectedServer == null ? List.of() : List.copyOf(expectedServer);
        verdictReasons = verdictReasons == null ? List.of() : List.copyOf(verdictReasons);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }

    public HostReport withSha256(String sha) {
        return new HostReport(kind, schemaVersion, inspectedAt, root, distribution, identity, config, loadBalancer,
                nodePasswordFile, services, leftovers, network, expectedServer, removal, verdict, verdictReasons,
                warnings, sha);
    }

    public HostReport withVerdict(HostVerdict newVerdict, List<String> reasons) {
        return new HostReport(kind, schemaVersion, inspectedAt, root, distribution, identity, config, loadBalancer,
                nodePasswordFile, services, leftovers, network, expectedServer, removal, newVerdict, reasons,
                warnings, sha256);
    }

    /** The service of that unit name, or null when the report did not ask systemd about it. */
    public Service service(String unit) {
        return services.stream().filter(s -> s.unit().equals(unit)).findFirst().orElse(null);
    }

    /** Units that run a kubelet for a cluster: an active one means the host is (or can be) a Node somewhere. */
    public List<Service> agentServices() {
        return services.stream().filter(s -> AGENT_UNITS.contains(s.unit())).toList();
    }

    public static final List<String> AGENT_UNITS = List.of("rke2-agent", "rke2-server", "k3s", "k3s-agent", "kubelet");
    public static final String SYSTEM_AGENT_UNIT = "rancher-system-agent";
    public static final List<String> ALL_UNITS = List.of("rke2-agent", "rke2-server", "k3s", "k3s-agent",
            SYSTEM_AGENT_UNIT, "kubelet");

    /**
     * Host identity, as the kubelet reports it in status.nodeInfo (machineID, systemUUID, bootID). The hostname is
     * never null in a report: {@link #UNKNOWN_HOSTNAME} says that neither file that holds it was found.
     */
    public record Identity(String hostname, String machineId, String productUuid, String bootId) {

        /** What a report says when the root holds neither /proc/sys/kernel/hostname nor /etc/hostname. */
        public static final String UNKNOWN_HOSTNAME = "(unknown: no /proc/sys/kernel/hostname or /etc/hostname)";

        /** The hostname, or null when the report could not tell it (older reports wrote null). */
        public String knownHostname() {
            return hostname == null || hostname.isBlank() || UNKNOWN_HOSTNAME.equals(hostname) ? null : hostname;
        }
    }

    /**
     * The agent's config after merging config.yaml and config.yaml.d/*.yaml in the order RKE2/k3s read them
     * (later files win for single values). {@code files} is empty when there is no config at all.
     */
    public record AgentConfig(List<String> files, String server, String nodeName, String nodeIp, boolean tokenSet,
                              boolean agentTokenSet) {
        public AgentConfig {
            files = files == null ? List.of() : List.copyOf(files);
        }

        public boolean present() {
            return !files.isEmpty();
        }
    }

    /** The agent load-balancer file: the server it was written for and the apiserver addresses it balances over. */
    public record LoadBalancer(String file, boolean present, String serverUrl, List<String> serverAddresses) {
        public LoadBalancer {
            serverAddresses = serverAddresses == null ? List.of() : List.copyOf(serverAddresses);
        }
    }

    /** Whether a file exists; its content is never read. */
    public record Presence(String path, boolean present) {
    }

    /**
     * One unit as `systemctl show` reports it. Active (running now) and enabled (starts at boot) are separate
     * answers: seed 002's kubelet was started by hand, never enabled, and did not come back after a reboot.
     */
    public record Service(String unit, String loadState, String activeState, String subState, String unitFileState,
                          String inactiveSince) {

        public boolean installed() {
            return loadState != null && !"not-found".equals(loadState);
        }

        public boolean active() {
            return "active".equals(activeState) || "activating".equals(activeState)
                    || "reloading".equals(activeState) || "deactivating".equals(activeState);
        }

        public boolean enabled() {
            return unitFileState != null && (unitFileState.startsWith("enabled") || "static".equals(unitFileState)
                    || "alias".equals(unitFileState) || "generated".equals(unitFileState)
                    || "linked".equals(unitFileState) || "linked-runtime".equals(unitFileState));
        }

        public String describe() {
            if (!installed()) {
                return unit + " not installed";
            }
            return unit + " " + unitFileState + "/" + activeState + (subState == null ? "" : " (" + subState + ")");
        }
    }

    /**
     * What a stopped agent leaves behind. rke2-agent stops with KillMode=process, so `systemctl stop` leaves the
     * containerd-shims, their containers, the pods' CNI interfaces and volume mounts; only rke2-killall.sh or
     * the uninstall script removes them. {@code scripts} lists the uninstall/killall scripts still installed.
     */
    public record Leftovers(int containerdShims, List<String> cniInterfaces, int podVolumeMounts,
                            List<String> scripts) {
        public Leftovers {
            cniInterfaces = cniInterfaces == null ? List.of() : List.copyOf(cniInterfaces);
            scripts = scripts == null ? List.of() : List.copyOf(scripts);
        }

        public boolean any() {
            return containerdShims > 0 || !cniInterfaces.isEmpty() || podVolumeMounts > 0 || !scripts.isEmpty();
        }

        public String describe() {
            return containerdShims + " containerd-shim(s), " + cniInterfaces.size() + " CNI interface(s), "
                    + podVolumeMounts + " pod volume mount(s)"
                    + (scripts.isEmpty() ? "" : ", scripts " + String.join(", ", scripts));
        }
    }

    /**
     * Addresses per NIC and the routes that pick one. {@code serverInterface} is the NIC the route to the
     * configured server leaves through (null when the server is not an IP address this report could route).
     */
    public record Network(List<Nic> interfaces, String defaultRouteInterface, String defaultGateway,
                          String serverInterface) {
        public Network {
            interfaces = interfaces == null ? List.of() : List.copyOf(interfaces);
        }
    }

    public record Nic(String name, List<String> addresses) {
        public Nic {
            addresses = addresses == null ? List.of() : List.copyOf(addresses);
        }
    }

    /** When the agent stopped or was removed, and where that time comes from. */
    public record Removal(Instant at, String source) {
    }
}
