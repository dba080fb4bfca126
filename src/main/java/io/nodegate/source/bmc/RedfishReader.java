package io.nodegate.source.bmc;

import io.nodegate.model.bmc.BmcReading;
import io.nodegate.model.bmc.BmcSystem;
import io.nodegate.model.bmc.PowerEvent;
import io.nodegate.model.bmc.PowerLog;
import io.nodegate.model.bmc.PowerVerdict;
import tools.jackson.databind.JsonNode;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads one BMC (DSP0266): the service root, then Systems, then each ComputerSystem's UUID, PowerState,
 * LastResetTime, BootProgress and Status (DSP0268 ComputerSystem.v1_x). For a system that is Off it also reads the
 * logs that may record power transitions (the system's own LogServices, those of the Managers that manage it and of
 * every Manager the service lists, whatever their LogEntryType; LogEntry.v1_x), for the time it went off, and says
 * which logs were read and which failed. Logs in with HTTP Basic or a session, and closes the session at the end
 * whatever happened.
 */
final class RedfishReader {

    /** Collections are paged (Members@odata.nextLink); more pages than this are not followed. */
    static final int MAX_PAGES = 40;
    /** LogServices read per system at most (the system's and its managers' together). */
    static final int MAX_LOG_SERVICES = 24;
    /**
     * LogServices that hold no power events and can be large, never read: BMC journals (bmcweb's "Journal"), dumps and
     * crash dumps, POST codes (NVIDIA's System_0 PostCodes holds 19,340), host console logs (OpenBMC "HostLogger"),
     * NVIDIA's field diagnostics ("FDR") and debug tokens. Every other log service is read, whatever its
     * LogEntryType: iLO's Event log and Supermicro's Log1 have none.
     */
    static final Set<String> NOT_EVENT_LOGS = Set.of("journal", "dump", "crashdump", "postcodes", "hostlogger", "fdr",
            "debugtokenservice");

    enum Auth { BASIC, SESSION }

    private final BmcTarget target;
    private final RedfishHttp http;
    private final Auth auth;
    private final Clock clock;
    private final Consumer<String> notes;
    /** The BMC's clock minus ours, from the first Manager read (its DateTime); null until then. */
    private Duration clockOffset;
    /** The service root's Managers collection; null when it links none. */
    private String managersPath;

    RedfishReader(BmcTarget target, RedfishHttp http, Auth auth, Clock clock, Consumer<String> notes) {
        this.target = target;
        this.http = http;
        this.auth = auth;
        this.clock = clock;
        this.notes = notes;
    }

    BmcReading read() {
        Instant started = clock.instant();
        try {
            JsonNode root = http.get("/redfish/v1");
            if (!root.has("RedfishVersion")) {
                throw new BmcException("GET /redfish/v1: the answer is not a Redfish service root (no RedfishVersion)");
            }
            login(root);
            managersPath = link(root.path("Managers"));
            String systemsPath = link(root.path("Systems"));
            if (systemsPath == null) {
                throw new BmcException("the service root links no Systems collection: this BMC manages no computer "
                        + "system nodegate could read");
            }
            List<BmcSystem> systems = new ArrayList<>();
            for (String member : members(systemsPath, "Systems").paths()) {
                systems.add(system(member));
            }
            return new BmcReading(target.url(), started, clockOffset, systems, null);
        } catch (BmcException e) {
            return BmcReading.failed(target.url(), started, e.getMessage());
        } finally {
            logout();
        }
    }

    private void login(JsonNode root) {
        if (auth == Auth.BASIC) {
            http.useBasic(target.credentials());
            return;
        }
        String sessions = link(root.path("Links").path("Sessions"));
        http.openSession(sessions == null ? "/redfish/v1/SessionService/Sessions" : sessions, target.credentials());
    }

    private void logout() {
        if (http.sessionLeftOpen() != null) {
            notes.accept("BMC " + target.url() + ": " + http.sessionLeftOpen());
        }
        if (!http.sessionOpen()) {
            return;
        }
        // stopped at the overall deadline, this thread is interrupted: the session is closed all the same
        boolean interrupted = Thread.interrupted();
        try {
            http.closeSession();
        } catch (BmcException e) {
            notes.accept("BMC " + target.url() + ": " + e.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private BmcSystem system(String path) {
        JsonNode s = http.get(path);
        String power = text(s.path("PowerState"));
        PowerLog log = PowerVerdict.of(power) == PowerVerdict.POWERED_OFF
                ? powerLog(s, s.path("@odata.id").asString(path)) : null;
        return new BmcSystem(target.url(), s.path("@odata.id").asString(path), text(s.path("UUID")), power,
                PowerEvents.time(text(s.path("LastResetTime"))), text(s.path("BootProgress").path("LastState")),
                PowerEvents.time(text(s.path("BootProgress").path("LastStateTime"))),
                text(s.path("Status").path("Health")), text(s.path("Status").path("State")), log);
    }

    /**
     * The power events of every log the system and its managers keep: the system's own LogServices, those of each
     * manager in its Links.ManagedBy, and those of every manager in the Managers collection (the power log may hang
     * off any of them: HPE iLO's Systems/1/LogServices/Event, Supermicro's Systems/1/LogServices/Log1, AMI's
     * Managers/Self/LogServices/EventLog), whatever their LogEntryType says or whether they have one. Each log is read
     * on its own: one that fails is said and does not keep the others from being read.
     */
    private PowerLog powerLog(JsonNode system, String systemPath) {
        List<PowerLog.LogRead> outcomes = new ArrayList<>();
        Set<String> collections = new LinkedHashSet<>();
        String own = link(system.path("LogServices"));
        if (own != null) {
            collections.add(own);
        }
        Set<String> managers = new LinkedHashSet<>();
        for (JsonNode manager : system.path("Links").path("ManagedBy")) {
            String managerPath = link(manager);
            if (managerPath != null) {
                managers.add(trim(managerPath));
            }
        }
        if (managersPath != null) {
            try {
                members(managersPath, "Managers").paths().forEach(m -> managers.add(trim(m)));
            } catch (BmcException e) {
                outcomes.add(failed(managersPath, e));
            }
        }
        for (String managerPath : managers) {
            try {
                JsonNode m = http.get(managerPath);
                clock(m);
                String logs = link(m.path("LogServices"));
                if (logs != null) {
                    collections.add(logs);
                }
            } catch (BmcException e) {
                outcomes.add(failed(managerPath, e));
            }
        }
        LogScan scan = new LogScan(systemPath);
        Set<String> services = new LinkedHashSet<>();
        for (String collection : collections) {
            try {
                for (String service : members(collection, "LogServices").paths()) {
                    if (!NOT_EVENT_LOGS.contains(lastSegment(service))) {
                        services.add(trim(service));
                    }
                }
            } catch (BmcException e) {
                outcomes.add(failed(collection, e));
            }
        }
        int n = 0;
        for (String service : services) {
            if (++n > MAX_LOG_SERVICES) {
                outcomes.add(new PowerLog.LogRead(service, PowerLog.Outcome.FAILED, 0, "more than "
                        + MAX_LOG_SERVICES + " log services: not read"));
                continue;
            }
            outcomes.add(readService(service, scan));
        }
        return new PowerLog(outcomes, scan.lastOff, scan.lastOn, scan.undated);
    }

    private static PowerLog.LogRead failed(String path, BmcException e) {
        return new PowerLog.LogRead(path, e.notFound() ? PowerLog.Outcome.NOT_FOUND : PowerLog.Outcome.FAILED, 0,
                e.getMessage());
    }

    private static String lastSegment(String path) {
        String p = trim(path);
        return p.substring(p.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
    }

    private static String trim(String path) {
        String p = path.strip();
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    /**
     * The BMC's clock against ours, from Manager.DateTime (DSP0268 Manager.v1_x: "the current date and time, with UTC
     * offset, of the manager"): log times are the BMC's clock, and BMCs without NTP drift by minutes.
     */
    private void clock(JsonNode manager) {
        Instant theirs = PowerEvents.time(text(manager.path("DateTime")));
        if (clockOffset == null && theirs != null) {
            // DateTime has whole seconds: a finer offset would be the request's own latency, not the BMC's clock
            clockOffset = Duration.ofSeconds(Math.round(Duration.between(clock.instant(), theirs).toMillis() / 1000.0));
        }
    }

    private static final class LogScan {
        final String system;
        PowerEvent lastOff;
        PowerEvent lastOn;
        int undated;

        LogScan(String system) {
            this.system = system;
        }

        void see(JsonNode entry) {
            PowerEvent.Kind kind = PowerEvents.kind(entry, system);
            if (kind == null) {
                return;
            }
            PowerEvent e = PowerEvents.of(entry, system);
            if (e == null) {
                undated++;
            } else if (e.kind() == PowerEvent.Kind.OFF && (lastOff == null || e.created().isAfter(lastOff.created()))) {
                lastOff = e;
            } else if (e.kind() == PowerEvent.Kind.ON && (lastOn == null || e.created().isAfter(lastOn.created()))) {
                lastOn = e;
            }
        }
    }

    /** One log service: its entries, or what kept them from being read. Never throws for the log's own faults. */
    private PowerLog.LogRead readService(String servicePath, LogScan scan) {
        String entries = servicePath;
        try {
            JsonNode service = http.get(servicePath);
            entries = link(service.path("Entries"));
            if (entries == null) {
                return new PowerLog.LogRead(servicePath, PowerLog.Outcome.FAILED, 0, "the log service links no "
                        + "Entries");
            }
            Page page = members(entries, "Entries");
            int linkOnly = 0;
            for (JsonNode entry : page.members()) {
                if (!entry.has("Created") && !entry.has("Message") && !entry.has("MessageId")) {
                    linkOnly++;
                    continue;
                }
                scan.see(entry);
            }
            if (linkOnly > 0) {
                return new PowerLog.LogRead(entries, PowerLog.Outcome.FAILED, page.members().size() - linkOnly,
                        entries + " lists " + linkOnly + " entries by link only; nodegate does not read them one by one");
            }
            return new PowerLog.LogRead(entries, page.truncated() ? PowerLog.Outcome.TRUNCATED
                    : PowerLog.Outcome.READ, page.members().size(), null);
        } catch (BmcException e) {
            return failed(entries, e);
        }
    }

    /** One collection, its pages followed up to {@link #MAX_PAGES}. */
    private record Page(List<JsonNode> members, boolean truncated) {
        List<String> paths() {
            List<String> out = new ArrayList<>();
            for (JsonNode m : members) {
                String p = link(m);
                if (p != null) {
                    out.add(p);
                }
            }
            return out;
        }
    }

    private Page members(String path, String what) {
        List<JsonNode> members = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        String next = path;
        for (int page = 0; next != null; page++) {
            if (page == MAX_PAGES || !seen.add(next)) {
                // more pages than nodegate reads, or a next link back to a page already read: what was read stands
                return new Page(members, true);
            }
            JsonNode collection = http.get(next);
            JsonNode list = collection.get("Members");
            if (list == null || !list.isArray()) {
                throw new BmcException("GET " + next + ": the " + what + " collection has no Members list");
            }
            list.forEach(members::add);
            String following = collection.path("Members@odata.nextLink").asString(null);
            next = following == null || following.isBlank() ? null : http.onThisBmc(following);
        }
        return new Page(members, false);
    }

    /** A navigation link's path: {"@odata.id": "/redfish/v1/Systems"}; null when there is none. */
    static String link(JsonNode ref) {
        String id = ref == null ? null : ref.path("@odata.id").asString(null);
        return id == null || id.isBlank() ? null : id;
    }

    private static String text(JsonNode n) {
        return n == null || !n.isString() ? null : n.asString();
    }
}
