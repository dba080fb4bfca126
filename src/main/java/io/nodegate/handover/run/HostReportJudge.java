package io.nodegate.handover.run;

import io.nodegate.InputException;
import io.nodegate.handover.HandoverReading;
import io.nodegate.handover.HandoverSpec;
import io.nodegate.handover.NodeHandover;
import io.nodegate.lifecycle.gate.HostEvidence;
import io.nodegate.model.NodeSystemInfo;
import io.nodegate.model.host.HostJudge;
import io.nodegate.model.host.HostReport;
import io.nodegate.source.host.HostReportJson;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A report written by `nodegate host inspect` on one of the hand-over's hosts, judged with the gate's own rules
 * ({@link HostJudge}: clean, stopped, points-elsewhere, running; the giving cluster's addresses from
 * {@link HostEvidence#clusterHosts}). Which target it is about is decided by the host's identity (machine-id,
 * product UUID against the identities recorded at open), never by a name the report could carry wrongly.
 */
public final class HostReportJudge {

    private HostReportJudge() {
    }

    /**
     * @param clusterHosts the names and addresses the giving cluster is known by
     * @throws InputException the file is not a host report, or it is from none of the targets
     */
    public static HandoverReading.HostReportSeen judge(Path file, NodeHandover h, Collection<String> clusterHosts) {
        HostReportJson.Loaded loaded = HostReportJson.load(file);
        HostReport r = loaded.report();
        HandoverSpec.Target target = null;
        for (HandoverSpec.Target t : h.spec().targets()) {
            if (same(r.identity().machineId(), t.machineId()) || same(r.identity().productUuid(), t.systemUuid())) {
                target = t;
                break;
            }
        }
        if (target == null) {
            throw new InputException("host report " + file + " (hostname " + r.identity().hostname() + ", machine-id "
                    + r.identity().machineId() + ", product UUID " + r.identity().productUuid() + ") is from none of "
                    + "the targets of " + h.name() + " " + h.spec().nodes());
        }
        List<String> problems = new ArrayList<>();
        if (differs(r.identity().machineId(), target.machineId())) {
            problems.add("the report's machine-id " + r.identity().machineId() + " is not " + target.node()
                    + "'s machineID " + target.machineId() + " (only its product UUID matches)");
        }
        if (differs(r.identity().productUuid(), target.systemUuid())) {
            problems.add("the report's product UUID " + r.identity().productUuid() + " is not " + target.node()
                    + "'s systemUUID " + target.systemUuid() + " (only its machine-id matches)");
        }
        HostJudge.Judgement j = HostJudge.judge(r, clusterHosts);
        return new HandoverReading.HostReportSeen(target.node(), file.toString(), r.sha256(), loaded.intact(),
                problems, j.verdict().text(), r.config() == null ? null : r.config().server(), r.inspectedAt(),
                j.reasons());
    }

    /** How a judged report is recorded in step 2's evidence (the violation rules read the server back from it). */
    public static String recorded(HandoverReading.HostReportSeen seen) {
        return seen.verdict() + " sha256:" + seen.sha256() + " server:" + seen.server() + " inspected:"
                + seen.inspectedAt();
    }

    private static boolean same(String a, String b) {
        return NodeSystemInfo.isMeaningfulId(a) && NodeSystemInfo.isMeaningfulId(b) && a.strip().equalsIgnoreCase(
                b.strip());
    }

    private static boolean differs(String a, String b) {
        return NodeSystemInfo.isMeaningfulId(a) && NodeSystemInfo.isMeaningfulId(b) && !a.strip().equalsIgnoreCase(
                b.strip());
    }

    /** The giving cluster's names and addresses, for judging where a report's agent points. */
    public static Collection<String> clusterHosts(String apiServer, HandoverReading.Giving giving,
                                                  List<String> extra) {
        return HostEvidence.clusterHosts(apiServer, giving.nodes(), extra);
    }
}
