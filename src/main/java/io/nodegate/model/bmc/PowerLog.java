package io.nodegate.model.bmc;

import java.util.List;

/**
 * What a system's logs say about power, read only when its PowerState is Off (the time it went off is the one thing
 * the log adds). The last power-off counts only when no power-on was logged after it: a host whose log ends in a
 * power-on yet reports Off went off without a log entry (an AC loss), and when is unknown.
 *
 * @param services     the LogService entry collections read (their @odata.id), in the order read
 * @param lastOff      the newest power-off entry, null when none was recognised
 * @param lastOn       the newest power-on entry, null when none was recognised
 * @param entriesRead  how many entries were read in all
 * @param truncated    true when a collection had more pages than nodegate reads (the newest event may be missing:
 *                     then there is no power-off time)
 * @param error        why reading a log failed (the PowerState itself was read); null when every log answered
 */
public record PowerLog(List<String> services, PowerEvent lastOff, PowerEvent lastOn, int entriesRead,
                       boolean truncated, String error) {

    public PowerLog {
        services = services == null ? List.of() : List.copyOf(services);
    }

    /**
     * The power-off that explains an Off now: the newest one, unless a power-on was logged after it. None when a log
     * could not be read, or not to its end: the entries not read might hold a later power-on.
     */
    public PowerEvent powerOff() {
        if (error != null || truncated || lastOff == null
                || (lastOn != null && lastOn.created().isAfter(lastOff.created()))) {
            return null;
        }
        return lastOff;
    }

    /** Why there is no power-off time, in words; null when there is one. */
    public String whyNoPowerOff() {
        if (powerOff() != null) {
            return null;
        }
        if (error != null) {
            return "the BMC's log could not be used (" + error + "): when it went off is unknown";
        }
        if (services.isEmpty()) {
            return "the BMC offers no SEL or event log to read";
        }
        if (truncated) {
            return "the log is longer than nodegate reads (" + entriesRead + " entries read): the newest power event "
                    + "may be among those not read";
        }
        if (lastOff != null) {
            return "the log's newest power event is a power-on (" + lastOn.describe() + "), after the last power-off: "
                    + "the host went off without a log entry (e.g. AC power lost)";
        }
        return "no power-off entry among the " + entriesRead + " log entries read";
    }
}
