package io.nodegate.lifecycle.verify;

import io.nodegate.lifecycle.rejoin.RejoinReader;
import io.nodegate.detect.rejoin.RejoinRisk;
import io.nodegate.model.verdict.Check;
import io.nodegate.model.verdict.Verdict;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * verify-gone's "can the removed hosts come back?": rejoin-risk's answer for every baseline target whose Node is
 * gone. Like the look across the fleet it informs and does not fail the run ("nothing came back" is what
 * verify-gone proves; "can come back" is shown next to it, with NG306 and what closes each open path); any read
 * that failed (an "unknown", or a path unread beside a proven answer) makes the run INVALID.
 */
public final class GoneRejoinCheck {

    public static final String ID = "rejoin";
    public static final String TITLE = "can the removed hosts come back (rejoin-risk)";

    private GoneRejoinCheck() {
    }

    public static Check check(RejoinReader.Report report) {
        Map<String, String> evid = new LinkedHashMap<>();
        List<String> reasons = new ArrayList<>();
        if (report.hosts().isEmpty()) {
            evid.put("removed targets", "none yet");
        }
        for (RejoinRisk.HostAnswer h : report.hosts()) {
            evid.put(h.node(), "can come back: " + h.summary());
            h.finding().ifPresent(f -> evid.put(h.node() + " " + f.code() + " " + f.name(), "close: " + f.hint()));
            if (!h.unread().isEmpty()) {
                // even beside a proven "yes" or "no": a call that failed invalidates the run
                reasons.add(h.node() + ": could not read " + String.join("; ", h.unread()));
            }
        }
        return new Check(ID, TITLE, reasons.isEmpty() ? Verdict.PASS : Verdict.INVALID, reasons, evid);
    }
}
