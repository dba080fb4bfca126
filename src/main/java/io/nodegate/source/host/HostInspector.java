package io.nodegate.source.host;

import io.nodegate.CollectionException;
import io.nodegate.NodegateException;
import io.nodegate.model.host.HostJudge;
import io.nodegate.model.host.HostReport;
import io.nodegate.source.YamlAliases;
import io.nodegate.source.json.ParseErrors;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads one host for `nodegate host inspect`: JDK only, no cluster access, nothing written, no secret read.
 * Every path is read under {@code root}, so the same code reads "/" on the host and a copied or mounted tree.
 * A file that is absent is an answer (recorded as absent); a file that exists but cannot be read is an error
 * (the report would otherwise claim an absence it did not see).
 */
public final class HostInspector {

    static final Pattern CNI_INTERFACE = Pattern.compile("^(cali.*|flannel.*|cni0|vxlan\\.calico|tunl0|cilium_.*)$");
    static final List<String> SCRIPT_DIRS = List.of("usr/local/bin", "opt/rke2/bin", "usr/bin");
    static final List<String> SCRIPTS = List.of("rke2-uninstall.sh", "rke2-killall.sh", "k3s-uninstall.sh",
            "k3s-agent-uninstall.sh", "k3s-killall.sh", "rancher-system-agent-uninstall.sh");
    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path root;
    private final HostRoot host;
    private final ServiceManager services;
    private final Clock clock;
    private final Function<String, List<String>> resolver;

    /**
     * @param services null when systemd cannot be asked (a mounted disk): services are then left out
     * @param resolver resolves a server name to IPv4 addresses; returns an empty list when it cannot
     */
    public HostInspector(Path root, ServiceManager services, Clock clock, Function<String, List<String>> resolver) {
        this.root = root;
        this.host = new HostRoot(root);
        this.services = services;
        this.clock = clock;
        this.resolver = resolver;
    }

    /** A resolver that asks the JDK (the host's own resolver); for a live host only. */
    public static List<String> resolveWithJdk(String name) {
        try {
            List<String> out = new ArrayList<>();
            for (InetAddress a : InetAddress.getAllByName(name)) {
                if (a instanceof java.net.Inet4Address) {
                    out.add(a.getHostAddress());
                }
            }
            return out;
        } catch (UnknownHostException e) {
            return List.of();
        }
    }

    /** Inspects the host; the result has its verdict against {@code expectedServers} but no sha256 yet. */
    public HostReport inspect(List<String> expectedServers, java.time.Instant removedAtByOwner) {
        String distribution = distribution();
        List<String> warnings = new ArrayList<>();
        String hostname = hostname();
        if (hostname == null) {
            hostname = HostReport.Identity.UNKNOWN_HOSTNAME;
            warnings.add("hostname unknown: neither /proc/sys/kernel/hostname nor /etc/hostname is under " + root
                    + "; without node-name in the config the agent registers under the hostname, which this report "
                    + "cannot name");
        }
        HostReport.Identity identity = new HostReport.Identity(hostname, firstLine("etc/machine-id"),
                firstLine("sys/class/dmi/id/product_uuid"), firstLine("proc/sys/kernel/random/boot_id"));
        HostReport.AgentConfig config = config(distribution, warnings);
        HostReport.LoadBalancer lb = loadBalancer(distribution);
        String dist = distribution.startsWith("k3s") ? "k3s" : "rke2";
        HostReport.Presence password = new HostReport.Presence("/etc/rancher/node/password",
                exists("etc/rancher/node/password"));
        long boot = bootTime();
        List<HostReport.Service> units = new ArrayList<>();
        if (services != null) {
            for (String unit : HostReport.ALL_UNITS) {
                units.add(services.show(unit, boot));
            }
        } else {
            warnings.add("services not read: systemd of " + root + " was not asked (pass --systemctl to read them)");
        }
        HostReport.Leftovers leftovers = new HostReport.Leftovers(containerdShims(), cniInterfaces(), podMounts(),
                scripts());
        HostReport.Network network = network(config);
        HostReport.Removal removal = removal(units, dist);
        if (removal == null && removedAtByOwner != null) {
            removal = new HostReport.Removal(removedAtByOwner, "host owner: --removed-at given to host inspect");
        }
        HostReport draft = new HostReport(HostReport.KIND, HostReport.SCHEMA_VERSION, clock.instant(),
                root.toString(), distribution, identity, config, lb, password, units, leftovers, network,
                expectedServers, removal, null, List.of(), List.of(), null);
        warnings.addAll(warnings(draft));
        draft = new HostReport(draft.kind(), draft.schemaVersion(), draft.inspectedAt(), draft.root(),
                draft.distribution(), identity, config, lb, password, units, leftovers, network, expectedServers,
                removal, null, List.of(), warnings, null);
        HostJudge.Judgement j = HostJudge.judge(draft, expectedServers);
        return draft.withVerdict(j.verdict(), j.reasons());
    }

    /** Seed 002's two host facts no API shows, and a stopped agent that comes back at the next boot. */
    static List<String> warnings(HostReport r) {
        List<String> out = new ArrayList<>();
        for (HostReport.Service s : r.services()) {
            if (s.installed() && s.active() && !s.enabled()) {
                out.add(s.unit() + " is active but not enabled (" + s.unitFileState() + "): it runs now but does not "
                        + "start after a reboot; `systemctl enable " + s.unit() + "` (seed 002: a kubelet started by "
                        + "hand never came back after a kernel-patch reboot)");
            }
            if (HostReport.AGENT_UNITS.contains(s.unit()) && s.installed() && !s.active() && s.enabled()
                    && r.config().present()) {
                out.add(s.unit() + " is stopped but enabled: it starts, and registers with " + r.config().server()
                        + ", at the next boot");
            }
        }
        HostReport.Network n = r.network();
        if (r.config().present() && r.config().nodeIp() == null && n.serverInterface() != null
                && n.defaultRouteInterface() != null && !n.serverInterface().equals(n.defaultRouteInterface())) {
            out.add("node-ip is not set, so the kubelet registers the address of " + n.defaultRouteInterface()
                    + " " + addressesOf(n, n.defaultRouteInterface()) + " (the default route's NIC), but the server "
                    + r.config().server() + " is reached through " + n.serverInterface() + " "
                    + addressesOf(n, n.serverInterface()) + ": set node-ip to the " + n.serverInterface()
                    + " address (seed 002: workers registered the NAT NIC's address, the same on every VM)");
        }
        return out;
    }

    private static List<String> addressesOf(HostReport.Network n, String iface) {
        return n.interfaces().stream().filter(i -> i.name().equals(iface)).findFirst()
                .map(HostReport.Nic::addresses).orElse(List.of());
    }

    String distribution() {
        boolean rke2 = exists("etc/rancher/rke2") || exists("var/lib/rancher/rke2")
                || SCRIPT_DIRS.stream().anyMatch(d -> exists(d + "/rke2"));
        boolean k3s = exists("etc/rancher/k3s") || exists("var/lib/rancher/k3s")
                || SCRIPT_DIRS.stream().anyMatch(d -> exists(d + "/k3s"));
        if (rke2 && k3s) {
            return "rke2+k3s";
        }
        if (rke2) {
            return "rke2";
        }
        if (k3s) {
            return "k3s";
        }
        return exists("etc/kubernetes/kubelet.conf") ? "kubeadm" : "none";
    }

    private HostReport.AgentConfig config(String distribution, List<String> warnings) {
        if ("kubeadm".equals(distribution)) {
            return kubeadmConfig();
        }
        String dist = distribution.startsWith("k3s") ? "k3s" : "rke2";
        if ("rke2+k3s".equals(distribution)) {
            warnings.add("both RKE2 and k3s are present; the report reads RKE2's config");
        }
        List<String> files = new ArrayList<>();
        String base = "etc/rancher/" + dist + "/config.yaml";
        if (exists(base)) {
            files.add(base);
        }
        String dropIns = base + ".d";
        if (host.isDirectory(dropIns)) {
            TreeSet<String> names = new TreeSet<>();
            host.list(dropIns).forEach(name -> {
                if (name.endsWith(".yaml") || name.endsWith(".yml")) {
                    names.add(name);
                }
            });
            names.forEach(n -> files.add(dropIns + "/" + n));
        }
        // config.yaml first, then config.yaml.d/* in lexical order; a later file's value wins (as RKE2/k3s merge)
        Map<String, JsonNode> merged = new TreeMap<>();
        for (String f : files) {
            JsonNode doc = yaml(f);
            if (doc == null || doc.isMissingNode() || doc.isNull()) {
                continue;
            }
            if (!doc.isObject()) {
                throw new CollectionException("/" + f + " is not a YAML mapping of options");
            }
            for (Map.Entry<String, JsonNode> e : doc.properties()) {
                merged.put(e.getKey(), e.getValue());
            }
        }
        return new HostReport.AgentConfig(files.stream().map(f -> "/" + f).toList(), text(merged.get("server")),
                text(merged.get("node-name")), text(merged.get("node-ip")),
                merged.containsKey("token") || merged.containsKey("token-file"),
                merged.containsKey("agent-token") || merged.containsKey("agent-token-file"));
    }

    /** kubeadm hosts (seed 002): the kubelet's kubeconfig names the server; --node-ip sits in kubeadm-flags.env. */
    private HostReport.AgentConfig kubeadmConfig() {
        String file = "etc/kubernetes/kubelet.conf";
        JsonNode doc = yaml(file);
        String server = null;
        JsonNode clusters = doc == null ? null : doc.get("clusters");
        if (clusters != null && clusters.isArray() && !clusters.isEmpty()) {
            server = text(clusters.get(0).path("cluster").get("server"));
        }
        String nodeIp = null;
        List<String> files = new ArrayList<>(List.of("/" + file));
        for (String env : List.of("var/lib/kubelet/kubeadm-flags.env", "etc/default/kubelet")) {
            if (exists(env)) {
                files.add("/" + env);
                var m = Pattern.compile("--node-ip[= ]([^\\s\"']+)").matcher(read(env));
                if (m.find()) {
                    nodeIp = m.group(1);
                }
            }
        }
        return new HostReport.AgentConfig(files, server, null, nodeIp, false, false);
    }

    private HostReport.LoadBalancer loadBalancer(String distribution) {
        String dist = distribution.startsWith("k3s") ? "k3s" : "rke2";
        String file = "var/lib/rancher/" + dist + "/agent/etc/" + dist + "-agent-load-balancer.json";
        if (!exists(file)) {
            return new HostReport.LoadBalancer("/" + file, false, null, List.of());
        }
        JsonNode doc;
        try {
            doc = JSON.readTree(read(file));
        } catch (JacksonException e) {
            throw new CollectionException(ParseErrors.describe("/" + file, "JSON", e));
        }
        if (doc == null || !doc.isObject()) {
            throw new CollectionException("/" + file + " is not a JSON object (the agent load-balancer file is one)");
        }
        List<String> addresses = new ArrayList<>();
        JsonNode list = doc.get("ServerAddresses");
        if (list != null && list.isArray()) {
            list.forEach(a -> addresses.add(a.asString()));
        }
        return new HostReport.LoadBalancer("/" + file, true, text(doc.get("ServerURL")), addresses);
    }

    private String hostname() {
        String h = firstLine("proc/sys/kernel/hostname");
        return h != null ? h : firstLine("etc/hostname");
    }

    private long bootTime() {
        if (!exists("proc/stat")) {
            return 0;
        }
        for (String line : read("proc/stat").split("\n")) {
            if (line.startsWith("btime ")) {
                try {
                    return Long.parseLong(line.substring(6).strip());
                } catch (NumberFormatException e) {
                    throw new CollectionException("/proc/stat: btime '" + line + "' is not a number");
                }
            }
        }
        return 0;
    }

    private int containerdShims() {
        if (!host.isDirectory("proc")) {
            return 0;
        }
        int n = 0;
        for (String pid : host.list("proc")) {
            if (!pid.chars().allMatch(Character::isDigit)) {
                continue;
            }
            // comm is the first 15 bytes of the name: "containerd-shim-runc-v2" reads "containerd-shim"; null when the
            // process exited while /proc was listed
            String comm = host.readIfPresent("proc/" + pid + "/comm");
            if (comm != null && comm.strip().startsWith("containerd-shim")) {
                n++;
            }
        }
        return n;
    }

    private List<String> cniInterfaces() {
        if (!host.isDirectory("sys/class/net")) {
            return List.of();
        }
        TreeSet<String> out = new TreeSet<>();
        host.list("sys/class/net").forEach(name -> {
            if (CNI_INTERFACE.matcher(name).matches()) {
                out.add(name);
            }
        });
        return List.copyOf(out);
    }

    private int podMounts() {
        if (!exists("proc/mounts")) {
            return 0;
        }
        int n = 0;
        for (String line : read("proc/mounts").split("\n")) {
            String[] f = line.split(" ");
            if (f.length > 1 && f[1].startsWith("/var/lib/kubelet/pods/")) {
                n++;
            }
        }
        return n;
    }

    private List<String> scripts() {
        List<String> out = new ArrayList<>();
        for (String dir : SCRIPT_DIRS) {
            for (String s : SCRIPTS) {
                if (exists(dir + "/" + s)) {
                    out.add("/" + dir + "/" + s);
                }
            }
        }
        return out;
    }

    private HostReport.Network network(HostReport.AgentConfig config) {
        List<HostNetwork.Route> routes = exists("proc/net/route")
                ? HostNetwork.parseRoutes(read("proc/net/route"), "/proc/net/route") : List.of();
        TreeMap<String, List<String>> byNic = new TreeMap<>();
        if (host.isDirectory("sys/class/net")) {
            host.list("sys/class/net").forEach(name -> {
                if (!"lo".equals(name) && !CNI_INTERFACE.matcher(name).matches()) {
                    byNic.put(name, new ArrayList<>());
                }
            });
        }
        if (exists("proc/net/fib_trie")) {
            for (String a : HostNetwork.parseFibTrieLocals(read("proc/net/fib_trie"))) {
                Integer ip = HostNetwork.parseIpv4(a);
                if (ip == null || (ip >>> 24) == 127) {
                    continue;
                }
                HostNetwork.Route connected = routes.stream().filter(r -> r.gateway() == 0 && !r.isDefault()
                        && r.contains(ip)).max(java.util.Comparator.comparingInt(HostNetwork.Route::prefixLength))
                        .orElse(null);
                String nic = connected == null ? "(no connected route)" : connected.iface();
                if (connected != null && CNI_INTERFACE.matcher(nic).matches()) {
                    continue;
                }
                String withPrefix = a + (connected == null ? "" : "/" + connected.prefixLength());
                byNic.computeIfAbsent(nic, k -> new ArrayList<>()).add(withPrefix);
            }
        }
        if (exists("proc/net/if_inet6")) {
            HostNetwork.parseIfInet6(read("proc/net/if_inet6")).forEach((nic, addrs) -> {
                if (!"lo".equals(nic) && !CNI_INTERFACE.matcher(nic).matches()) {
                    byNic.computeIfAbsent(nic, k -> new ArrayList<>()).addAll(addrs);
                }
            });
        }
        List<HostReport.Nic> nics = new ArrayList<>();
        byNic.forEach((k, v) -> nics.add(new HostReport.Nic(k, v)));
        HostNetwork.Route def = HostNetwork.defaultRoute(routes);
        String serverNic = null;
        if (config.server() != null && !routes.isEmpty()) {
            String host = HostJudge.host(config.server());
            Integer ip = HostNetwork.parseIpv4(host);
            if (ip == null) {
                ip = resolver.apply(host).stream().map(HostNetwork::parseIpv4).filter(java.util.Objects::nonNull)
                        .findFirst().orElse(null);
            }
            if (ip != null) {
                HostNetwork.Route r = HostNetwork.routeFor(routes, ip);
                serverNic = r == null ? null : r.iface();
            }
        }
        return new HostReport.Network(nics, def == null ? null : def.iface(),
                def == null ? null : HostNetwork.ipv4(def.gateway()), serverNic);
    }

    /** The agent unit's last stop, from systemd; only while the unit is still installed and inactive. */
    private static HostReport.Removal removal(List<HostReport.Service> units, String dist) {
        for (HostReport.Service s : units) {
            if (s.unit().startsWith(dist) && s.installed() && !s.active() && s.inactiveSince() != null) {
                return new HostReport.Removal(java.time.Instant.parse(s.inactiveSince()),
                        "systemd: " + s.unit() + " became inactive (InactiveEnterTimestamp)");
            }
        }
        return null;
    }

    private static String text(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        if (n.isArray()) {
            List<String> parts = new ArrayList<>();
            n.forEach(x -> parts.add(x.asString()));
            return String.join(",", parts);
        }
        String s = n.asString();
        return s == null || s.isBlank() ? null : s.strip();
    }

    private boolean exists(String rel) {
        return host.exists(rel);
    }

    /**
     * One YAML document (config.yaml, a drop-in, kubelet.conf). An alias is refused with its line (it would read as
     * its name), and a syntax error names the file and line but never the text: the line may be the join token.
     */
    private JsonNode yaml(String rel) {
        String text = read(rel);
        String where = "/" + rel;
        try (JsonParser parser = YamlAliases.refusing(YAML.createParser(text), where, CollectionException::new)) {
            return YAML.readTree(parser);
        } catch (NodegateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CollectionException(ParseErrors.describe(where, "YAML", e));
        }
    }

    /** The first line of a file, or null when it is absent or empty (a link leading nowhere inside the root too). */
    private String firstLine(String rel) {
        String text = host.readIfPresent(rel);
        if (text == null) {
            return null;
        }
        String s = text.strip();
        int nl = s.indexOf('\n');
        s = nl >= 0 ? s.substring(0, nl).strip() : s;
        return s.isEmpty() ? null : s;
    }

    private String read(String rel) {
        return host.read(rel);
    }

}
