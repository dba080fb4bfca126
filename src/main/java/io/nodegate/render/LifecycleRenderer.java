package io.nodegate.render;

import io.nodegate.render.output.Style;
import io.nodegate.lifecycle.baseline.Baseline;
import io.nodegate.lifecycle.evidence.Json;
import io.nodegate.model.verdict.Check;
import io.nodegate.lifecycle.gate.GateService;
import io.nodegate.model.verdict.Verdict;
import io.nodegate.lifecycle.readmit.Readmitter;
import io.nodegate.lifecycle.remove.NodeRemover;
import io.nodegate.lifecycle.verify.GoneVerifier;
import io.nodegate.render.output.TextReport;
import io.nodegate.render.output.TreeReport;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the removal lifecycle prints: baseline save, gate, remove, verify-gone and readmit. The text is a verdict line
 * and the checks (-o wide adds every check's evidence, also of the checks that passed); -o json and -o yaml print
 * the record that was kept in the evidence directory, in the evidence files' shape (map keys sorted).
 */
public final class LifecycleRenderer {

    private LifecycleRenderer() {
    }

    /**
     * The first line of a run: "gate gpu-a11: PASS", followed by the checks that were not run, so that a PASS never
     * reads as covering them: "gate gpu-a11: PASS (not checked: host, fleet)".
     */
    public static String verdictLine(String run, Verdict verdict, List<Check> checks) {
        List<String> notChecked = Check.notCheckedIds(checks);
        return run + ": " + verdict + (notChecked.isEmpty() ? "" : " (not checked: " + String.join(", ", notChecked)
                + ")");
    }

    /** A check's outcome as printed: PASS, HOLD, FAIL, INVALID, or "not checked" (its input was not given). */
    public static String outcome(Check c) {
        return c.outcome() == Verdict.NOT_CHECKED ? "not checked" : c.outcome().name();
    }

    /** One line per check (outcome, title), then its reasons and all its evidence. */
    static void checks(StringBuilder w, List<Check> checks) {
        for (Check c : checks) {
            fitted(w, String.format("  %-8s ", outcome(c)), "           ", c.title());
            c.reasons().forEach(r -> fitted(w, "      - ", "        ", r));
            c.evidence().forEach((k, v) -> fitted(w, "        ", "          ", k + ": " + v));
        }
    }

    /**
     * One line of a report, {@code first} then {@code text}, as it is when it fits {@link TextTable#FIT} columns,
     * else word-wrapped onto lines indented by {@code rest}, as kubectl describe wraps a long value. A word is
     * never split, so a path or a sum stays whole and can still be pasted.
     */
    static void fitted(StringBuilder w, String first, String rest, String text) {
        if (first.length() + text.length() <= TextTable.FIT) {
            w.append(first).append(text).append('\n');
            return;
        }
        FindingsSection.wrap(text, first, rest).forEach(l -> w.append(l).append('\n'));
    }

    /**
     * A host step ("3. Install RKE2 ...: curl ... sh -"): a step too long for one line breaks after its first colon,
     * so that the command or file content after it stays whole on its own line, ready to paste.
     */
    private static void step(StringBuilder w, String step) {
        int colon = step.indexOf(": ");
        if (2 + step.length() <= TextTable.FIT || colon < 0) {
            fitted(w, "  ", "       ", step);
            return;
        }
        w.append("  ").append(step, 0, colon + 1).append('\n');
        fitted(w, "       ", "       ", step.substring(colon + 2));
    }

    /** "record: FILE (sha256 SUM)", the sum on a line of its own when both do not fit one. */
    private static void recordLine(StringBuilder w, Path file, String sha256) {
        String line = "record: " + file + (sha256 == null ? "" : " (sha256 " + sha256 + ")");
        if (line.length() <= TextTable.FIT || sha256 == null) {
            w.append(line).append('\n');
            return;
        }
        w.append("record: ").append(file).append('\n').append("  (sha256 ").append(sha256).append(")\n");
    }

    private static JsonNode evidenceTree(Object record) {
        return Json.MAPPER.valueToTree(record);
    }

    /** `baseline save`: what was recorded, and where. */
    public record BaselineOutput(Baseline baseline, Path file) implements TextReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            Baseline b = baseline;
            StringBuilder w = new StringBuilder();
            w.append(String.format("BASELINE_TS %s  server %s%n", b.baselineTs(), b.server()));
            fitted(w, "targets: ", "  ", b.targets().stream().map(t -> t.name() + " (Ready " + t.ready()
                    + ", bootID " + t.bootId() + ", lease " + t.leaseRenewTime() + ")").toList().toString());
            w.append(String.format("control: %s (%d pods, node-password %s)%n", b.control().name(), b.control().pods(),
                    b.control().nodePasswordSecret()));
            w.append(String.format("other nodes: %d, DaemonSets: %d, GPU totals: %s, MetalLB: %s, node-password "
                            + "Secrets: %d%n", b.nonTargets().size(), b.daemonSets().size(), b.gpuTotals(),
                    b.metallb() == null ? "not installed" : b.metallb(), b.nodePasswordSecrets().size()));
            w.append(String.format("etcd members: %s%n", b.etcdMembers() == null ? "not recorded (no etcd source)"
                    : b.etcdMembers().size()));
            w.append(String.format("written: %s%n", file));
            return w.toString();
        }

        /** The baseline as written to the file. */
        @Override
        public JsonNode tree() {
            return evidenceTree(baseline);
        }
    }

    /** `gate NODE`: the verdict, every check with its reasons, and the record kept as evidence. */
    public record GateOutput(String node, GateService.Run run) implements TextReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            StringBuilder w = new StringBuilder();
            w.append(verdictLine("gate " + node, run.result().verdict(), run.result().checks())).append('\n');
            for (Check c : run.result().checks()) {
                fitted(w, String.format("  %-12s %-8s ", "[" + c.id() + "]", outcome(c)), " ".repeat(25), c.title());
                for (String r : c.reasons()) {
                    fitted(w, "      - ", "        ", r);
                }
                // a check that passed shows its evidence with -o wide ([c]'s times, the redundancy counts and the
                // host's always); a BMC that was not asked has none to show
                boolean ran = c.outcome() != Verdict.NOT_CHECKED;
                boolean show = (ran && (wide || c.outcome() != Verdict.PASS)) || "c".equals(c.id())
                        || "redundancy".equals(c.id()) || "host".equals(c.id()) || "kubelet".equals(c.id())
                        || ("bmc".equals(c.id()) && ran);
                if (show) {
                    for (Map.Entry<String, String> e : c.evidence().entrySet()) {
                        fitted(w, "        ", "          ", e.getKey() + ": " + e.getValue());
                    }
                }
            }
            recordLine(w, run.recordFile(), run.sha256());
            if (run.annotation() != null) {
                w.append(run.annotation()).append('\n');
            }
            return w.toString();
        }

        /** The gate record, as kept in the evidence directory. */
        @Override
        public JsonNode tree() {
            return evidenceTree(run.record());
        }
    }

    /** `verify-gone`: the verdict and every check, each with its self-test. */
    public record VerifyGoneOutput(Instant baselineTs, GoneVerifier.Run run) implements TextReport, TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            StringBuilder w = new StringBuilder();
            w.append(verdictLine("verify-gone (baseline " + baselineTs + ")", run.result().verdict(),
                    run.result().checks())).append('\n');
            checks(w, run.result().checks());
            recordLine(w, run.recordFile(), null);
            return w.toString();
        }

        @Override
        public JsonNode tree() {
            return evidenceTree(run.result());
        }
    }

    /**
     * `remove NODE`: its progress is printed while it happens (to stdout with a table, to stderr otherwise); this is
     * what comes after: the last line when the cascade completed, and the removal record in JSON or YAML.
     */
    public record RemoveOutput(String node, NodeRemover.Record record, Path evidenceDir) implements TextReport,
            TreeReport {
        @Override
        public String text(Style style, boolean wide) {
            // an incomplete or failed cascade is said by the command's error message (exit 3 or 4), not here
            return record.cascadeComplete() && record.error() == null && record.tombstoneError() == null
                    ? String.format("removed %s: cascade complete; evidence in %s%n", node, evidenceDir) : "";
        }

        @Override
        public JsonNode tree() {
            return evidenceTree(record);
        }
    }

    /** `readmit NODE`: the plan (or what was done), the release of a removed host, or the check after rejoining. */
    public sealed interface ReadmitOutput extends TextReport, TreeReport {
    }

    /** `readmit NODE --verify`. */
    public record ReadmitVerification(Readmitter.Verification verification) implements ReadmitOutput {
        @Override
        public String text(Style style, boolean wide) {
            Readmitter.Verification v = verification;
            StringBuilder w = new StringBuilder();
            w.append(verdictLine("readmit --verify " + v.node(), v.verdict(), v.checks())).append('\n');
            checks(w, v.checks());
            v.deletedJobs().forEach(j -> w.append(String.format("deleted Failed Job %s (backed up first)%n", j)));
            return w.toString();
        }

        @Override
        public JsonNode tree() {
            return evidenceTree(verification);
        }
    }

    /** `readmit NODE` for a host `remove` deleted: no Node to keep, only its quarantine to lift. */
    public record ReadmitRelease(Readmitter.Release release) implements ReadmitOutput {
        @Override
        public String text(Style style, boolean wide) {
            StringBuilder w = new StringBuilder();
            releaseLine(w, release);
            w.append(String.format("  Node %s is gone (removed %s): the host joins as a new Node; reinstall at exactly "
                    + "%s%n", release.node(), release.tombstone().removedAt(), release.clusterVersion()));
            w.append("host-side steps:\n");
            release.hostSteps().forEach(s -> step(w, s));
            return w.toString();
        }

        @Override
        public JsonNode tree() {
            return evidenceTree(release);
        }
    }

    /** `readmit NODE` for a host that comes back to its Node; {@code release} when it was also tombstoned. */
    public record ReadmitPlan(Readmitter.Plan plan, Readmitter.Release release) implements ReadmitOutput {
        @Override
        public String text(Style style, boolean wide) {
            Readmitter.Plan p = plan;
            StringBuilder w = new StringBuilder();
            if (release != null) {
                releaseLine(w, release);
            }
            w.append(String.format("readmit %s: keep the Node object (cordon, role labels, taints, podCIDR stay)%n",
                    p.node()));
            w.append(String.format("  cluster version: %s (the host reported %s): reinstall at exactly %s%n",
                    p.clusterVersion(), p.nodeKubelet(), p.clusterVersion()));
            if (p.secret() == null) {
                w.append("  node-password Secret: none (NotFound): nothing to delete\n");
            } else if (p.deleted()) {
                w.append(String.format("  deleted Secret kube-system/%s (metadata backed up to %s)%n", p.secret().name(),
                        p.backup()));
            } else {
                w.append(String.format("  would delete Secret kube-system/%s (created %s); run again with --yes%n",
                        p.secret().name(), p.secret().created()));
            }
            w.append("host-side steps:\n");
            p.hostSteps().forEach(s -> step(w, s));
            return w.toString();
        }

        /** The plan; with a tombstone also released, {"plan", "tombstone"}. */
        @Override
        public JsonNode tree() {
            return evidenceTree(release == null ? plan : Map.of("plan", plan, "tombstone", release));
        }
    }

    private static void releaseLine(StringBuilder w, Readmitter.Release r) {
        var t = r.tombstone();
        String what = "tombstone " + t.name() + " (systemUUID " + t.systemUuid() + ", machineID " + t.machineId()
                + ", removed " + t.removedAt() + " by " + t.removedBy() + ")";
        if (r.released()) {
            w.append(String.format("readmit %s: released %s from %s (saved to %s)%n", r.node(), what, r.where(),
                    r.backup()));
        } else {
            w.append(String.format("readmit %s: would release %s from %s; run again with --yes%n", r.node(), what,
                    r.where()));
        }
    }
}
