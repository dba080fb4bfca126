package io.nodegate.handover.run;

import io.nodegate.handover.HandoverReading;
import io.nodegate.handover.Step;
import io.nodegate.handover.StepRecord;
import io.nodegate.model.CordonOwner;
import io.nodegate.model.NodeInfo;

import java.util.ArrayList;
import java.util.List;

/**
 * Writes why the hand-over's targets are cordoned, once step 1 (empty: each target cordoned) is recorded: the
 * annotation {@value CordonOwner#REASON_ANNOTATION} names the hand-over, the step, who said it was done and when.
 * Kubernetes keeps no "why" of a cordon, so without it a tool that uncordons what it did not cordon (an upgrade
 * controller, a drain script) and a person reading `audit` (NG171) cannot tell a hand-over's cordon from a forgotten
 * one.
 *
 * <p>Each target is written from the Node exactly as the step's checks read it: a Node that is not cordoned there,
 * or already carries a reason (anyone may write one), is left as is; a Node that changed since that read is not
 * written at all (the write tests its uid and resourceVersion), and is reported, never retried on a newer version
 * whose cordon nobody checked.
 */
public final class CordonReasons {

    /** The longest reason written: words for a person, not a record. */
    static final int MAX_LENGTH = 256;

    /** What happened on one target. */
    public enum Outcome {
        /** The reason was written (and the API server's answer showed it). */
        WRITTEN,
        /** It already carried a reason: left as is. */
        KEPT,
        /** Not cordoned, or not there, in the read the checks made: nothing to explain. */
        SKIPPED,
        /** Replaced, changed or deleted since the read: not written, on purpose. */
        CHANGED,
        /** The write failed or its outcome is unknown. */
        FAILED
    }

    /** One target's outcome, in words. */
    public record Line(String node, Outcome outcome, String text) {
    }

    /** What one step's record did to its targets' reasons. */
    public record Report(String reason, List<Line> lines) {
        public Report {
            lines = List.copyOf(lines);
        }

        /** Whether any target was meant to get the reason and did not (changed since the read, or a failed write). */
        public boolean failed() {
            return lines.stream().anyMatch(l -> l.outcome() == Outcome.CHANGED || l.outcome() == Outcome.FAILED);
        }

        /** Lines for the person (no value read from the cluster is repeated: an existing reason is not printed). */
        public List<String> notes() {
            List<String> out = new ArrayList<>();
            if (lines.stream().anyMatch(l -> l.outcome() == Outcome.WRITTEN)) {
                out.add(CordonOwner.REASON_ANNOTATION + " written: " + reason);
            }
            for (Line l : lines) {
                out.add(l.node() + ": " + l.text());
            }
            return out;
        }
    }

    /** Writes the annotation on one Node; each call reports its own outcome and never throws. */
    @FunctionalInterface
    public interface Writer {
        Line add(NodeInfo asRead, String key, String value);
    }

    private CordonReasons() {
    }

    /** The words written: which hand-over, which step, who said it was done and when. */
    public static String reason(String handover, StepRecord record) {
        String text = "hand-over " + handover + ", step " + record.step() + " (" + Step.of(record.step()).title()
                + ") recorded by " + record.by() + " at " + record.at();
        // a value is one line of words: --by is typed by a person, never trusted to be one line
        text = text.replaceAll("\\p{Cntrl}", " ");
        return text.length() <= MAX_LENGTH ? text : text.substring(0, MAX_LENGTH - 1) + "…";
    }

    /**
     * Writes the reason on every target that the read the step's checks made shows cordoned and without one.
     *
     * @param targets the hand-over's targets, in its order
     * @param giving  the giving cluster as the step's checks read it (must be a read without error)
     */
    public static Report write(String handover, StepRecord record, List<String> targets,
                               HandoverReading.Giving giving, Writer writer) {
        if (giving == null || giving.error() != null) {
            throw new IllegalArgumentException("a cordon reason is written only from a read that succeeded");
        }
        String reason = reason(handover, record);
        List<Line> lines = new ArrayList<>();
        for (String t : targets) {
            NodeInfo n = giving.node(t);
            if (n == null) {
                lines.add(new Line(t, Outcome.SKIPPED, "not there when read (NotFound): nothing written"));
            } else if (!n.unschedulable()) {
                lines.add(new Line(t, Outcome.SKIPPED, "not cordoned when read: nothing written"));
            } else if (n.annotations().containsKey(CordonOwner.REASON_ANNOTATION)) {
                lines.add(new Line(t, Outcome.KEPT, CordonOwner.REASON_ANNOTATION + " left as is: it already says "
                        + "why (written before; nodegate never overwrites a reason)"));
            } else {
                lines.add(writer.add(n, CordonOwner.REASON_ANNOTATION, reason));
            }
        }
        return new Report(reason, lines);
    }
}
