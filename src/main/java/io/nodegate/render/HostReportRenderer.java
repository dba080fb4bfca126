package io.nodegate.render;

import io.nodegate.render.output.Style;
import io.nodegate.model.host.HostReport;
import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;

/** The host report as a person reads it on the host's terminal. */
public final class HostReportRenderer {

    private HostReportRenderer() {
    }

    /**
     * The report as `host inspect` prints it; {@code tree} is the report's JSON (the same file --out writes, re-read
     * with its sha256 intact), {@code savedTo} the --out file or null. There are no columns to add: -o wide prints
     * the same.
     */
    public record Output(HostReport report, JsonNode tree, String savedTo) implements TextReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            return table(report, style) + (savedTo == null ? "" : "report: " + savedTo + "\n");
        }
    }

    public static String table(HostReport r, Style style) {
        StringBuilder b = new StringBuilder();
        HostReport.Identity id = r.identity();
        b.append(style.bold("host " + id.hostname() + ": " + r.verdict().text())).append('\n');
        r.verdictReasons().forEach(x -> FindingsSection.fit(x, "  - ", "    ").forEach(l -> b.append(l).append('\n')));
        b.append('\n');
        line(b, "inspected", r.inspectedAt() + (r.root().equals("/") ? "" : " (root " + r.root() + ")"));
        line(b, "distribution", r.distribution());
        line(b, "machine-id", id.machineId());
        line(b, "product uuid", id.productUuid());
        line(b, "boot id", id.bootId());
        HostReport.AgentConfig c = r.config();
        if (c.present()) {
            line(b, "config", String.join(", ", c.files()));
            line(b, "  server", c.server());
            line(b, "  node-name", c.nodeName() == null ? "(not set: the hostname, " + id.hostname() + ")" : c.nodeName());
            line(b, "  node-ip", c.nodeIp() == null ? "(not set: the default route's NIC)" : c.nodeIp());
            line(b, "  token", c.tokenSet() ? "set (value not read into this report)" : "not set");
        } else {
            line(b, "config", "none");
        }
        HostReport.LoadBalancer lb = r.loadBalancer();
        line(b, "load balancer", lb.present() ? lb.file() + ": " + lb.serverUrl() + " -> " + lb.serverAddresses()
                : "none (" + lb.file() + ")");
        line(b, "node password", r.nodePasswordFile().present() ? "present (content not read)" : "absent");
        if (r.services().isEmpty()) {
            line(b, "services", "not read");
        }
        for (HostReport.Service s : r.services()) {
            line(b, "service", s.installed() ? String.format("%-22s enabled=%s active=%s (%s)%s", s.unit(),
                    s.unitFileState(), s.activeState(), s.subState(),
                    s.inactiveSince() == null || s.active() ? "" : " since " + s.inactiveSince())
                    : String.format("%-22s not installed", s.unit()));
        }
        HostReport.Leftovers l = r.leftovers();
        line(b, "leftovers", l.containerdShims() + " containerd-shim(s), " + l.podVolumeMounts() + " pod volume mount(s)");
        line(b, "  CNI interfaces", l.cniInterfaces().isEmpty() ? "none" : String.join(" ", l.cniInterfaces()));
        line(b, "  scripts", l.scripts().isEmpty() ? "none" : String.join(" ", l.scripts()));
        HostReport.Network n = r.network();
        for (HostReport.Nic nic : n.interfaces()) {
            line(b, "nic " + nic.name(), nic.addresses().isEmpty() ? "-" : String.join(" ", nic.addresses())
                    + (nic.name().equals(n.defaultRouteInterface()) ? "   (default route via " + n.defaultGateway() + ")" : "")
                    + (nic.name().equals(n.serverInterface()) ? "   (route to the server)" : ""));
        }
        if (r.removal() != null) {
            line(b, "removed/stopped", r.removal().at() + " (" + r.removal().source() + ")");
        }
        if (!r.warnings().isEmpty()) {
            b.append('\n').append("WARNINGS (").append(r.warnings().size()).append(")\n");
            r.warnings().forEach(w -> FindingsSection.fit(w, "  - ", "    ").forEach(x -> b.append(x).append('\n')));
        }
        b.append('\n').append("sha256 ").append(r.sha256()).append('\n');
        return b.toString();
    }

    private static void line(StringBuilder b, String key, String value) {
        FindingsSection.fit(value == null ? "-" : value, String.format("%-16s ", key), " ".repeat(19))
                .forEach(l -> b.append(l).append('\n'));
    }

}
