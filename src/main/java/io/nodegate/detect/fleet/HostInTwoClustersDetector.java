package io.nodegate.detect.fleet;

import io.nodegate.detect.Evidence;
import io.nodegate.detect.Finding;
import io.nodegate.detect.FindingCode;
import io.nodegate.detect.Severity;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * NG301: one host (same machineID or systemUUID, see {@link HostLedger}) is a Node in two or more clusters.
 *
 * <p>Critical when it is a <b>departure</b>: the host is not Ready in one cluster and Ready in another. That is what
 * the field saw when gpu-a07..a09 stopped renewing their Leases in cluster A at 05:23:42Z and registered with
 * cluster B three seconds later: for six days cluster A showed only Ready=Unknown, the same as a powered-off host.
 * The message puts the two sides next to each other in numbers (Lease stop, creation in the other cluster, the gap).
 * When one ID ties the two Nodes and the other differs ({@link Host#idsDisagree}: only the firmware UUID matches, or
 * only /etc/machine-id does), the ledger cannot tell one moved host from two machines (a reinstall, cloned VMs), so
 * the departure is a warning: one rule for both IDs, documented in docs/findings.md "Host identity".
 *
 * <p>Warning when the host is Ready in two clusters: one identity serves both (cloned VMs with a copied UUID, or a
 * host whose agent runs against two clusters). Info when it is Ready in none: stale objects of a host that left.
 */
public final class HostInTwoClustersDetector implements FleetDetector {

    @Override
    public FindingCode code() {
        return FindingCode.NG301;
    }

    @Override
    public List<Finding> detect(Fleet fleet) {
        List<Finding> findings = new ArrayList<>();
        for (Host host : fleet.ledger().hosts()) {
            if (host.inSeveralClusters()) {
                findings.add(finding(host));
            }
        }
        return findings;
    }

    private Finding finding(Host host) {
        Departure departure = departure(host);
        List<HostAppearance> ready = host.appearances().stream().filter(HostAppearance::isReady).toList();
        long readyClusters = ready.stream().map(HostAppearance::cluster).distinct().count();
        Severity severity;
        StringBuilder message = new StringBuilder();
        String hint;
        if (departure != null) {
            severity = host.idsDisagree() ? Severity.WARNING : Severity.CRITICAL;
            message.append(departure.story());
            if (host.idsDisagree()) {
                message.append(". But ").append(host.disagreement());
            }
            hint = "The host left " + departure.left().cluster() + ": it serves " + departure.now().cluster()
                    + " now, so waiting for " + departure.left().node() + " to come back is waiting for nothing. "
                    + "Ask the host's owner, then remove " + departure.left().node() + " from "
                    + departure.left().cluster() + " through the gate; and make sure the host's old RKE2 config for "
                    + departure.left().cluster() + " is gone before it reboots.";
        } else if (readyClusters >= 2) {
            severity = Severity.WARNING;
            message.append("one host is Ready in ").append(readyClusters).append(" clusters: ")
                    .append(String.join("; ", ready.stream().map(HostInTwoClustersDetector::brief).toList()))
                    .append(host.idsDisagree() ? ". But " + host.disagreement()
                            : Host.BOTH.equals(host.match()) ? ". Both IDs match: one machine"
                            : ". The " + host.match() + " matches and no ID disagrees: one machine, most likely");
            hint = host.idsDisagree()
                    ? "Give cloned VMs distinct firmware UUIDs (the hypervisor can regenerate them) and their own "
                    + "/etc/machine-id (systemd-machine-id-setup): tools and licences that key on either treat them as "
                    + "one machine."
                    : "One machine cannot serve two clusters safely: find which cluster the host belongs to and "
                    + "remove its Node from the other through the gate.";
        } else {
            severity = Severity.INFO;
            message.append("one host has Nodes in ").append(host.clusters().size())
                    .append(" clusters and is Ready in none: ")
                    .append(String.join("; ", host.appearances().stream().map(HostInTwoClustersDetector::brief)
                            .toList()));
            hint = "Stale objects of a host that left, or a host that is down: remove the Nodes that should not "
                    + "exist through the gate.";
        }
        // the departure's two sides first (the host's old Node, then its new one), then any other appearance
        java.util.LinkedHashSet<String> ordered = new java.util.LinkedHashSet<>();
        if (departure != null) {
            ordered.add(departure.left().node());
            ordered.add(departure.now().node());
        }
        host.appearances().forEach(a -> ordered.add(a.node()));
        List<String> nodes = List.copyOf(ordered);
        Evidence evidence = Evidence.of()
                .put("match", host.match())
                .list("systemUUIDs", host.systemUuids())
                .list("machineIDs", host.machineIds())
                .list("clusters", host.clusters())
                .list("appearances", host.appearances().stream().map(HostInTwoClustersDetector::appearance).toList());
        if (departure != null) {
            evidence.put("departedFrom", departure.left().cluster())
                    .put("departedNode", departure.left().node())
                    .time("leaseStopped", departure.left().leaseRenewTime())
                    .put("nowIn", departure.now().cluster())
                    .put("nowNode", departure.now().node())
                    .time("createdThere", departure.now().created())
                    .seconds("gapSeconds", departure.gap());
        }
        return new Finding(code(), severity, nodes, message.toString(), evidence.build(), hint,
                "host " + host.displayId());
    }

    /** The not-Ready side and the Ready side in another cluster; null when there is no such pair. */
    static Departure departure(Host host) {
        List<HostAppearance> left = host.appearances().stream().filter(a -> !a.isReady()).toList();
        List<HostAppearance> ready = host.appearances().stream().filter(HostAppearance::isReady).toList();
        Departure best = null;
        for (HostAppearance l : left) {
            for (HostAppearance r : ready) {
                if (l.cluster().equals(r.cluster())) {
                    continue;
                }
                Departure d = new Departure(l, r);
                if (best == null || BY_CLOSENESS.compare(d, best) < 0) {
                    best = d;
                }
            }
        }
        return best;
    }

    /** The pair whose Ready side was created closest after the other side's Lease stopped tells the story best. */
    private static final Comparator<Departure> BY_CLOSENESS = Comparator
            .comparing((Departure d) -> d.gap() == null ? Long.MAX_VALUE : Math.abs(d.gap().toSeconds()))
            .thenComparing(d -> d.left().cluster()).thenComparing(d -> d.left().node());

    record Departure(HostAppearance left, HostAppearance now) {

        /**
         * From the old side's last Lease renewal to the new Node's creation, in whole seconds as both API objects
         * print them (creationTimestamp has no fraction); null when either time is missing.
         */
        Duration gap() {
            Instant stopped = left.leaseRenewTime();
            return stopped == null || now.created() == null ? null
                    : Duration.between(stopped.truncatedTo(ChronoUnit.SECONDS), now.created().truncatedTo(ChronoUnit.SECONDS));
        }

        String story() {
            StringBuilder s = new StringBuilder();
            Instant stopped = left.leaseRenewTime() == null ? null : left.leaseRenewTime().truncatedTo(ChronoUnit.SECONDS);
            s.append(left.node()).append(" in ").append(left.cluster()).append(": ")
                    .append(left.ready() == null ? "no Ready condition" : left.ready());
            s.append(stopped == null ? ", no Lease" : ", Lease stopped " + stopped);
            s.append("; the same host is ").append(now.node()).append(" in ").append(now.cluster());
            if (now.created() != null) {
                Instant created = now.created().truncatedTo(ChronoUnit.SECONDS);
                boolean sameDay = stopped != null && stopped.truncatedTo(ChronoUnit.DAYS)
                        .equals(created.truncatedTo(ChronoUnit.DAYS));
                s.append(", created ").append(sameDay ? created.toString().substring(11) : created.toString());
                Duration gap = gap();
                if (gap != null) {
                    s.append(" (").append(spoken(gap)).append(')');
                }
            }
            s.append(", Ready");
            if (left.bootId() != null && left.bootId().equals(now.bootId())) {
                s.append(". Same bootID on both sides: the agent was restarted against ").append(now.cluster())
                        .append(", the machine did not reboot");
            }
            return s.toString();
        }
    }

    /** "3 s later", "2 h 5 min later", "4 d before the Lease stopped". */
    static String spoken(Duration gap) {
        Duration abs = gap.abs();
        long s = abs.toSeconds();
        String amount = s < 120 ? s + " s"
                : s < 7200 ? (s / 60) + " min"
                : s < 172_800 ? (s / 3600) + " h " + (s % 3600) / 60 + " min"
                : (s / 86_400) + " d " + (s % 86_400) / 3600 + " h";
        return gap.isNegative() ? amount + " before the Lease stopped" : amount + " later";
    }

    private static String brief(HostAppearance a) {
        return a.node() + " in " + a.cluster() + " (" + (a.ready() == null ? "no Ready condition" : "Ready=" + a.ready())
                + (a.created() == null ? "" : ", created " + a.created()) + ")";
    }

    private static Map<String, Object> appearance(HostAppearance a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cluster", a.cluster());
        m.put("node", a.node());
        m.put("ready", a.ready());
        m.put("leaseRenewTime", Objects.toString(a.leaseRenewTime(), null));
        m.put("created", Objects.toString(a.created(), null));
        m.put("bootID", a.bootId());
        m.put("internalIP", a.internalIp());
        m.put("systemUUID", a.systemUuid());
        m.put("machineID", a.machineId());
        return m;
    }
}
