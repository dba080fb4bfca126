package io.nodegate.model.bmc;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What a system's logs say about power, read only when its PowerState is Off (the time it went off is the one thing
 * the log adds). The last power-off counts only when no power-on was logged after it: a host whose log ends in a
 * power-on yet reports Off went off without a log entry (an AC loss), and when is unknown.
 *
 * @param logs    every log looked at, in the order read, each with what came of it (read, not found, failed...)
 * @param lastOff the newest power-off entry, null when none was recognised
 * @param lastOn  the newest power-on entry, null when none was recognised
 * @param undated power events nodegate recognised but cannot date (HPE iLO writes {@code Created:
 *                "0000-00-00T00:00:00Z"} before its clock is set): any of them might be the newest
 */
public record PowerLog(List<LogRead> logs, PowerEvent lastOff, PowerEvent lastOn, int undated) {

    /** What came of looking at one log (or at the resource that lists logs). */
    public enum Outcome {
        /** its entries were read to the end */
        READ,
        /** more pages than nodegate reads: the newest event may be among those not read */
        TRUNCATED,
        /** HTTP 404: the BMC lists it but it is not there (absent: it holds nothing) */
        NOT_FOUND,
        /** any other error: what it holds is unknown */
        FAILED
    }

    /**
     * @param path    the log's Entries collection (or the resource that failed)
     * @param outcome what came of it
     * @param entries how many entries were read from it
     * @param detail  the error, for FAILED and NOT_FOUND; null otherwise
     */
    public record LogRead(String path, Outcome outcome, int entries, String detail) {

        /** "/redfish/v1/.../EventLog/Entries (10 entries)", "/redfish/v1/.../Sel/Entries (HTTP 404)". */
        public String describe() {
            return switch (outcome) {
                case READ -> path + " (" + entries + " entries)";
                case TRUNCATED -> path + " (" + entries + " entries, more not read)";
                case NOT_FOUND -> path + " (HTTP 404: not there)";
                case FAILED -> path + " (failed: " + detail + ")";
            };
        }
    }

    public PowerLog {
        logs = logs == null ? List.of() : List.copyOf(logs);
    }

    /**
     * The earlier shape: the Entries collections read, one error for all. Kept for callers that build a log by hand
     * (tests of other checks); the entries are counted on the first log.
     */
    public PowerLog(List<String> services, PowerEvent lastOff, PowerEvent lastOn, int entriesRead, boolean truncated,
                    String error) {
        this(legacy(services, entriesRead, truncated, error), lastOff, lastOn, 0);
    }

    private static List<LogRead> legacy(List<String> services, int entriesRead, boolean truncated, String error) {
        List<LogRead> out = new ArrayList<>();
        for (int i = 0; i < services.size(); i++) {
            out.add(new LogRead(services.get(i), truncated && i == 0 ? Outcome.TRUNCATED : Outcome.READ,
                    i == 0 ? entriesRead : 0, null));
        }
        if (error != null) {
            out.add(new LogRead("log", Outcome.FAILED, 0, error));
        }
        return out;
    }

    /** The Entries collections whose entries were read (in full or in part). */
    public List<String> services() {
        return logs.stream().filter(l -> l.outcome() == Outcome.READ || l.outcome() == Outcome.TRUNCATED)
                .map(LogRead::path).toList();
    }

    public int entriesRead() {
        return logs.stream().mapToInt(LogRead::entries).sum();
    }

    public boolean truncated() {
        return logs.stream().anyMatch(l -> l.outcome() == Outcome.TRUNCATED);
    }

    /** Why a log could not be read (404s excluded: an absent log holds nothing); null when every log answered. */
    public String error() {
        List<String> failed = logs.stream().filter(l -> l.outcome() == Outcome.FAILED).map(LogRead::detail).toList();
        return failed.isEmpty() ? null : String.join("; ", failed);
    }

    /**
     * The power-off that explains an Off now: the newest one, unless a power-on was logged after it. None when a log
     * could not be read, or not to its end, or holds a power event without a date: those might hold a later power-on.
     */
    public PowerEvent powerOff() {
        if (error() != null || truncated() || undated > 0 || lastOff == null
                || (lastOn != null && lastOn.created().isAfter(lastOff.created()))) {
            return null;
        }
        return lastOff;
    }

    /** "logs read: A (10 entries), B (HTTP 404: not there)"; "no log service found" when there was none. */
    public String describeLogs() {
        if (logs.isEmpty()) {
            return "no log service holding events was found under the system, its managers or the Managers collection";
        }
        return "logs read: " + logs.stream().map(LogRead::describe).collect(Collectors.joining(", "));
    }

    /** Why there is no power-off time, in words; null when there is one. */
    public String whyNoPowerOff() {
        if (powerOff() != null) {
            return null;
        }
        if (error() != null) {
            return "a log could not be read (" + error() + "): when it went off is unknown";
        }
        if (services().isEmpty()) {
            return logs.isEmpty() ? "the BMC lists no log service holding events for this system or its managers"
                    : "no log listed could be read";
        }
        if (truncated()) {
            return "the log is longer than nodegate reads (" + entriesRead() + " entries read): the newest power "
                    + "event may be among those not read";
        }
        if (undated > 0) {
            return undated + " power event(s) in the log carry no usable date (e.g. Created 0000-00-00T00:00:00Z): "
                    + "the newest may be among them";
        }
        if (lastOff != null) {
            return "the log's newest power event is a power-on (" + lastOn.describe() + "), after the last power-off: "
                    + "the host went off without a log entry (e.g. AC power lost)";
        }
        return "none of the " + entriesRead() + " entries read is a power-off nodegate recognises"
                + (lastOn == null ? "" : " (the newest power-on: " + lastOn.describe() + ")")
                + ": this vendor's wording for one is unknown to nodegate (docs/bmc.md lists the MessageIds and "
                + "messages it knows)";
    }
}
