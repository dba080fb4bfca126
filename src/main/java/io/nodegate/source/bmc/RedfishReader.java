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
 * logs that record power transitions (the system's own LogServices and those of the Managers that manage it: the SEL
 * or the event log, LogEntry.v1_x), for the time it went off. Logs in with HTTP Basic or a session, and closes the
 * session at the end whatever happened.
 */
final class RedfishReader {

    /** Collections are paged (Members@odata.nextLink); more pages than this are not followed. */
    static final int MAX_PAGES = 40;
    /** LogServices read per collection at most. */
    static final int MAX_LOG_SERVICES = 8;
    /**
     * LogService Ids known to hold power transitions (DMTF mockup "Log", iDRAC "Sel", OpenBMC "EventLog"/"SEL", iLO
     * "IML"/"IEL", XClarity "PlatformLog"/"StandardLog"); any other is read only when its LogEntryType says SEL or
     * Event. Dumps, crash logs and journals are never read.
     */
    static final Set<String> EVENT_LOG_IDS = Set.of("log", "sel", "eventlog", "iml", "iel", "platformlog",
            "standardlog");

    enum Auth { BASIC, SESSION }

    private final BmcTarget target;
    private final RedfishHttp http;
    private final Auth auth;
    private final Clock clock;
    private final Consumer<String> notes;
    /** The BMC's clock minus ours, from the first Manager read (its DateTime); null until then. */
    private Duration clockOffset;

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
        PowerLog log = PowerVerdict.of(power) == PowerVerdict.POWERED_OFF ? powerLog(s) : null;
        return new BmcSystem(target.url(), s.path("@odata.id").asString(path), text(s.path("UUID")), power,
                PowerEvents.time(text(s.path("LastResetTime"))), text(s.path("BootProgress").path("LastState")),
                PowerEvents.time(text(s.path("BootProgress").path("LastStateTime"))),
                text(s.path("Status").path("Health")), text(s.path("Status").path("State")), log);
    }

    /** The power events of every event log the system and its managers keep; a log that fails is said, not hidden. */
    private PowerLog powerLog(JsonNode system) {
        Set<String> collections = new LinkedHashSet<>();
        String own = link(system.path("LogServices"));
        if (own != null) {
            collections.add(own);
        }
        List<String> errors = new ArrayList<>();
        for (JsonNode manager : system.path("Links").path("ManagedBy")) {
            String managerPath = link(manager);
            if (managerPath == null) {
                continue;
            }
            try {
                JsonNode m = http.get(managerPath);
                clock(m);
                String logs = link(m.path("LogServices"));
                if (logs != null) {
                    collections.add(logs);
                }
            } catch (BmcException e) {
                if (!e.notFound()) {
                    errors.add(e.getMessage());
                }
            }
        }
        LogScan scan = new LogScan();
        for (String collection : collections) {
            try {
                List<String> services = members(collection, "LogServices").paths();
                for (String service : services.subList(0, Math.min(services.size(), MAX_LOG_SERVICES))) {
                    readService(service, scan);
                }
            } catch (BmcException e) {
                if (!e.notFound()) {
                    errors.add(e.getMessage());
                }
            }
        }
        return new PowerLog(scan.read, scan.lastOff, scan.lastOn, scan.entries, scan.truncated,
                errors.isEmpty() ? null : String.join("; ", errors));
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
        final List<String> read = new ArrayList<>();
        PowerEvent lastOff;
        PowerEvent lastOn;
        int entries;
        boolean truncated;

        void see(PowerEvent e) {
            if (e.kind() == PowerEvent.Kind.OFF && (lastOff == null || e.created().isAfter(lastOff.created()))) {
                lastOff = e;
            } else if (e.kind() == PowerEvent.Kind.ON && (lastOn == null || e.created().isAfter(lastOn.created()))) {
                lastOn = e;
            }
        }
    }

    private void readService(String servicePath, LogScan scan) {
        JsonNode service = http.get(servicePath);
        String id = service.path("Id").asString(servicePath.substring(servicePath.lastIndexOf('/') + 1));
        String type = service.path("LogEntryType").asString("");
        boolean eventLog = EVENT_LOG_IDS.contains(id.toLowerCase(Locale.ROOT))
                || type.equals("SEL") || type.equals("Event");
        String entries = link(service.path("Entries"));
        if (!eventLog || entries == null) {
            return;
        }
        Page page = members(entries, "Entries");
        scan.read.add(entries);
        scan.truncated |= page.truncated();
        int linkOnly = 0;
        for (JsonNode entry : page.members()) {
            scan.entries++;
            if (!entry.has("Created") && !entry.has("Message") && !entry.has("MessageId")) {
                linkOnly++;
                continue;
            }
            PowerEvent e = PowerEvents.of(entry);
            if (e != null) {
                scan.see(e);
            }
        }
        if (linkOnly > 0) {
            throw new BmcException(entries + " lists " + linkOnly + " entries by link only; nodegate does not read "
                    + "them one by one");
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
            next = following == null || following.isBlank() ? null : RedfishHttp.pathOf(following);
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
