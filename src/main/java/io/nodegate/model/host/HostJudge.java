package io.nodegate.model.host;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns a host report's facts into its verdict, against the addresses of the cluster it is checked against.
 * Pure: `host inspect` uses it with the --expect-server addresses, the gate with what the cluster says about
 * itself (apiserver endpoints, control-plane node addresses, the kubeconfig's server).
 */
public final class HostJudge {

    private HostJudge() {
    }

    /** Whether the agent's configured server is the cluster in question. */
    public enum ServerMatch { NOT_CHECKED, NO_SERVER, THIS, ELSEWHERE }

    public record Judgement(HostVerdict verdict, List<String> reasons, ServerMatch server) {
        public Judgement {
            reasons = List.copyOf(reasons);
        }
    }

    /**
     * @param clusterHosts host names and IP addresses the cluster is known by; empty = do not compare servers
     */
    public static Judgement judge(HostReport r, Collection<String> clusterHosts) {
        List<String> reasons = new ArrayList<>();
        ServerMatch match = serverMatch(r, clusterHosts);
        HostReport.AgentConfig config = r.config();
        if (match == ServerMatch.ELSEWHERE) {
            reasons.add("the agent's server " + config.server() + " (" + String.join(", ", config.files())
                    + ") is not this cluster, which is known as " + new TreeSet<>(lower(clusterHosts)) + lbSays(r));
        }
        List<String> active = r.agentServices().stream().filter(HostReport.Service::active)
                .map(HostReport.Service::describe).toList();
        if (!active.isEmpty()) {
            reasons.add("running: " + String.join(", ", active));
        }
        boolean servicesRead = !r.services().isEmpty();
        List<String> remains = new ArrayList<>();
        if (config.present()) {
            remains.add("agent config " + String.join(", ", config.files()));
        }
        if (r.loadBalancer() != null && r.loadBalancer().present()) {
            remains.add("load-balancer file " + r.loadBalancer().file());
        }
        if (r.nodePasswordFile() != null && r.nodePasswordFile().present()) {
            remains.add("node password file " + r.nodePasswordFile().path());
        }
        r.services().stream().filter(HostReport.Service::installed).filter(s -> !s.active())
                .forEach(s -> remains.add(s.describe()));
        HostReport.Service systemAgent = r.service(HostReport.SYSTEM_AGENT_UNIT);
        if (systemAgent != null && systemAgent.active()) {
            remains.add(systemAgent.describe() + " (Rancher can reinstall the agent through it)");
        }
        if (r.leftovers() != null && r.leftovers().any()) {
            remains.add(r.leftovers().describe());
        }
        HostVerdict verdict;
        if (match == ServerMatch.ELSEWHERE) {
            verdict = HostVerdict.POINTS_ELSEWHERE;
        } else if (!active.isEmpty()) {
            verdict = HostVerdict.RUNNING;
        } else if (!servicesRead) {
            // without the units, "stopped" and "running" look alike: say that it could not tell
            verdict = HostVerdict.INCOMPLETE;
            reasons.add("incomplete: services not read (systemd was not asked; with --root, pass --systemctl): "
                    + "whether an agent runs cannot be told");
        } else if (remains.isEmpty()) {
            verdict = HostVerdict.CLEAN;
            reasons.add("no agent config, no agent unit, no node password file, no leftovers");
        } else {
            verdict = HostVerdict.STOPPED;
        }
        if (verdict != HostVerdict.CLEAN && !remains.isEmpty()) {
            reasons.add("remains: " + String.join("; ", remains));
        }
        return new Judgement(verdict, reasons, match);
    }

    public static ServerMatch serverMatch(HostReport r, Collection<String> clusterHosts) {
        if (clusterHosts == null || clusterHosts.isEmpty()) {
            return ServerMatch.NOT_CHECKED;
        }
        HostReport.AgentConfig config = r.config();
        if (config == null || config.server() == null) {
            return ServerMatch.NO_SERVER;
        }
        Set<String> known = lower(clusterHosts);
        if (known.contains(host(config.server()))) {
            return ServerMatch.THIS;
        }
        // the server may be a VIP or DNS name the cluster does not list; the load-balancer file written for this
        // very server lists the apiservers it actually reached, which the cluster does list
        HostReport.LoadBalancer lb = r.loadBalancer();
        if (lb != null && lb.present() && config.server().equals(lb.serverUrl())
                && lb.serverAddresses().stream().map(HostJudge::host).anyMatch(known::contains)) {
            return ServerMatch.THIS;
        }
        return ServerMatch.ELSEWHERE;
    }

    private static String lbSays(HostReport r) {
        HostReport.LoadBalancer lb = r.loadBalancer();
        if (lb == null || !lb.present()) {
            return "";
        }
        return "; the load-balancer file (ServerURL " + lb.serverUrl() + ") lists " + lb.serverAddresses();
    }

    private static Set<String> lower(Collection<String> hosts) {
        Set<String> out = new TreeSet<>();
        hosts.forEach(h -> out.add(host(h)));
        return out;
    }

    /** The host part of a URL, "host:port" or bare host, lower-cased, without IPv6 brackets. */
    public static String host(String address) {
        String a = address.trim();
        if (a.contains("://")) {
            try {
                String h = URI.create(a).getHost();
                if (h != null) {
                    a = h;
                }
            } catch (IllegalArgumentException e) {
                a = a.substring(a.indexOf("://") + 3);
            }
        }
        if (a.startsWith("[")) {
            int end = a.indexOf(']');
            a = end > 0 ? a.substring(1, end) : a.substring(1);
        } else if (a.indexOf(':') == a.lastIndexOf(':') && a.indexOf(':') > 0) {
            a = a.substring(0, a.indexOf(':'));
        }
        int slash = a.indexOf('/');
        if (slash > 0) {
            a = a.substring(0, slash);
        }
        return a.toLowerCase(Locale.ROOT);
    }
}
