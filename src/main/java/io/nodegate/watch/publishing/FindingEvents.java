package io.nodegate.watch.publishing;

import io.nodegate.detect.Finding;
import io.nodegate.detect.Severity;

import java.util.Locale;

/** How a finding is said as a core/v1 Event: reason, type and message. */
public final class FindingEvents {

    /** Reason of the Event posted when a finding goes away. */
    public static final String RESOLVED_REASON = "NodegateResolved";
    /** Events carry at most this much message (the API server rejects very long ones; 1 KiB reads fine). */
    public static final int MAX_MESSAGE = 1024;

    private FindingEvents() {
    }

    /** The finding's name in CamelCase: same-host-two-names -> SameHostTwoNames. */
    public static String reason(Finding f) {
        StringBuilder out = new StringBuilder();
        for (String part : f.name().split("[-_ ]+")) {
            if (!part.isEmpty()) {
                out.append(part.substring(0, 1).toUpperCase(Locale.ROOT)).append(part.substring(1));
            }
        }
        return out.toString();
    }

    /** Warning for warning and critical findings, Normal for info. */
    public static String type(Finding f) {
        return f.severity().atLeast(Severity.WARNING) ? "Warning" : "Normal";
    }

    /** Starts with the code, then what the finding says. */
    public static String message(Finding f) {
        return clip(f.code() + " " + f.message());
    }

    /** The resolution: names the code and what went away, so `kubectl get events` reads on its own. */
    public static String resolvedMessage(Finding f) {
        return clip(f.code() + " " + reason(f) + " resolved: no longer found on " + String.join(", ", f.nodes())
                + " (was: " + f.message() + ")");
    }

    private static String clip(String s) {
        return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE - 1) + "…";
    }
}
