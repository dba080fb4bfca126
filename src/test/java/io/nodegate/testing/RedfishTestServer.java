package io.nodegate.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.nodegate.source.tls.PemTls;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Redfish service (DSP0266) on a loopback HTTPS port, for tests: it serves what a BMC serves to a reader, in the
 * shapes of DMTF's published mockups and of real vendors, and behaves like a BMC where nodegate depends on it.
 *
 * <ul>
 *   <li><b>Resources</b>: a service root (ServiceRoot.v1_15_0, shaped after DMTF Redfish-Mockup-Server
 *   public-rackmount1/index.json), Systems and Managers collections, ComputerSystems (ComputerSystem.v1_22_0, after
 *   public-rackmount1/Systems/437XR1138R2/index.json), Managers, LogServices (LogService.v1_4_0, after
 *   public-rackmount1/Managers/BMC/LogServices/Log/index.json) and LogEntry collections (LogEntry.v1_14_0), laid out
 *   as one of {@link Layout}: the DMTF mockup, Dell iDRAC, OpenBMC bmcweb or HPE iLO.</li>
 *   <li><b>Authentication</b>: the service root is open (DSP0266: it never requires authentication); everything else
 *   needs HTTP Basic (when {@link #basicAllowed}) or an X-Auth-Token from a session opened by POSTing UserName and
 *   Password to /redfish/v1/SessionService/Sessions (201, X-Auth-Token, Location), closed by DELETE of that
 *   Location. A wrong password answers 401.</li>
 *   <li><b>Faults</b>: a delay before every answer (a slow BMC), a status for every request (503: busy), a clock
 *   offset in the Manager's DateTime (a BMC without NTP), Entries paged with Members@odata.nextLink.</li>
 *   <li><b>Recording</b>: every request's method and path ({@link #requests()}), the most requests it served at once
 *   ({@link #maxConcurrent()}), and the sessions still open.</li>
 * </ul>
 * Any method other than GET, the session POST and the session DELETE answers 405, and is recorded like the rest, so a
 * test sees it was sent.
 */
public final class RedfishTestServer implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    public static final String SESSIONS = "/redfish/v1/SessionService/Sessions";

    /** Where a vendor puts its system, manager and the log that records power transitions. */
    public enum Layout {
        /** DMTF public-rackmount1: Systems/437XR1138R2, Managers/BMC, Managers/BMC/LogServices/Log. */
        DMTF("/redfish/v1/Systems/", "/redfish/v1/Managers/BMC", "/redfish/v1/Managers/BMC/LogServices/Log", "Log",
                "Event"),
        /**
         * Dell iDRAC: Systems/System.Embedded.1, Managers/iDRAC.Embedded.1, the SEL at
         * Managers/iDRAC.Embedded.1/LogServices/Sel (dell/iDRAC-Redfish-Scripting "Redfish Python/GetIdracSelLogsREDFISH.py").
         */
        IDRAC("/redfish/v1/Systems/", "/redfish/v1/Managers/iDRAC.Embedded.1",
                "/redfish/v1/Managers/iDRAC.Embedded.1/LogServices/Sel", "Sel", "SEL"),
        /**
         * OpenBMC bmcweb: Systems/system, Managers/bmc, the event log under the system
         * (redfish-core/lib/log_services.hpp: /redfish/v1/Systems/system/LogServices/EventLog/Entries).
         */
        OPENBMC("/redfish/v1/Systems/", "/redfish/v1/Managers/bmc", "/redfish/v1/Systems/system/LogServices/EventLog",
                "EventLog", "Event"),
        /** HPE iLO: Systems/1, Managers/1, the Integrated Management Log at Systems/1/LogServices/IML. */
        ILO("/redfish/v1/Systems/", "/redfish/v1/Managers/1", "/redfish/v1/Systems/1/LogServices/IML", "IML", "Event");

        final String systemsPrefix;
        final String manager;
        final String log;
        final String logId;
        final String logEntryType;

        Layout(String systemsPrefix, String manager, String log, String logId, String logEntryType) {
            this.systemsPrefix = systemsPrefix;
            this.manager = manager;
            this.log = log;
            this.logId = logId;
            this.logEntryType = logEntryType;
        }
    }

    private final HttpsServer server;
    private final ExecutorService executor;
    private final Map<String, ObjectNode> resources = new ConcurrentHashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final Map<String, String> sessions = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxConcurrent = new AtomicInteger();
    private final AtomicInteger sessionIds = new AtomicInteger();
    private final Layout layout;
    private volatile String user = "root";
    private volatile String password = "calvin";
    private volatile boolean basicAllowed = true;
    private volatile Duration delay = Duration.ZERO;
    private volatile String delayedPath;
    private volatile int failStatus;
    private volatile Duration clockOffset = Duration.ZERO;
    private volatile int pageSize = Integer.MAX_VALUE;
    private volatile String sessionLocation;

    /** Serving a real BMC's capture: every resource as it was captured, a query string ignored. */
    private final boolean captured;

    private RedfishTestServer(HttpsServer server, ExecutorService executor, Layout layout, boolean captured) {
        this.server = server;
        this.executor = executor;
        this.layout = layout;
        this.captured = captured;
        if (!captured) {
            root();
        }
    }

    /** An HTTPS Redfish service on 127.0.0.1 presenting {@code cert} (a PEM chain) with {@code key}. */
    public static RedfishTestServer start(Path cert, Path key, Layout layout) {
        return start(cert, key, layout, false);
    }

    /**
     * Serves a real BMC's capture as it is (../shared/field/redfish/NAME, see FieldCaptures): each {@code index.json}
     * at its own {@code @odata.id} (with or without a trailing slash), a query string ignored (the capture has one page
     * per collection), the Manager's DateTime set to now as a live BMC reports it. A capture without a service root
     * (the crawler never got it) gets one written here, linking Systems, Managers and the Sessions collection, with a
     * Name saying so. Read in place, never copied.
     */
    public static RedfishTestServer capture(Path cert, Path key, Path dir) {
        RedfishTestServer rf = start(cert, key, Layout.DMTF, true);
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().equals("index.json")).toList()) {
                JsonNode node = JSON.readTree(f.toFile());
                if (node instanceof ObjectNode o && o.hasNonNull("@odata.id")) {
                    rf.resources.put(trim(o.get("@odata.id").asString()), o);
                }
            }
        } catch (IOException e) {
            rf.close();
            throw new IllegalStateException("cannot read the capture " + dir + ": " + e, e);
        }
        if (!rf.resources.containsKey("/redfish/v1")) {
            ObjectNode root = object("#ServiceRoot.v1_5_0.ServiceRoot", "/redfish/v1");
            root.put("Id", "RootService");
            root.put("Name", "Service root written by the test: the capture has none");
            root.put("RedfishVersion", "1.0.0");
            root.set("Systems", link("/redfish/v1/Systems"));
            root.set("Managers", link("/redfish/v1/Managers"));
            root.set("SessionService", link("/redfish/v1/SessionService"));
            root.putObject("Links").set("Sessions", link(SESSIONS));
            rf.resources.put("/redfish/v1", root);
        }
        return rf;
    }

    /** Sets a captured system's PowerState, as the BMC would report it now. */
    public RedfishTestServer powerState(String systemPath, String state) {
        ObjectNode s = resources.get(trim(systemPath));
        if (s == null) {
            throw new IllegalArgumentException("no resource " + systemPath);
        }
        s.put("PowerState", state);
        return this;
    }

    /**
     * Cuts a captured log to the entries {@code Created} at or before {@code until} (an ISO instant): the log as it
     * stood then. Logs wrap, so the cut is by Created, not by position; an entry without a readable date stays.
     */
    public RedfishTestServer logAsOf(String entriesPath, String until) {
        Instant cut = Instant.parse(until);
        ObjectNode entries = resources.get(trim(entriesPath));
        ArrayNode kept = JSON.createArrayNode();
        for (JsonNode e : entries.get("Members")) {
            Instant created;
            try {
                created = java.time.OffsetDateTime.parse(e.path("Created").asString("")).toInstant();
            } catch (java.time.format.DateTimeParseException ex) {
                created = null;
            }
            if (created == null || !created.isAfter(cut)) {
                kept.add(e);
            }
        }
        ObjectNode out = entries.deepCopy();
        out.set("Members", kept);
        out.put("Members@odata.count", kept.size());
        resources.put(trim(entriesPath), out);
        return this;
    }

    /** Cuts a captured log to its first {@code n} members (a log that had not yet grown). */
    public RedfishTestServer logFirst(String entriesPath, int n) {
        ObjectNode out = resources.get(trim(entriesPath)).deepCopy();
        ArrayNode kept = JSON.createArrayNode();
        JsonNode members = out.get("Members");
        for (int i = 0; i < Math.min(n, members.size()); i++) {
            kept.add(members.get(i));
        }
        out.set("Members", kept);
        out.put("Members@odata.count", kept.size());
        resources.put(trim(entriesPath), out);
        return this;
    }

    private static RedfishTestServer start(Path cert, Path key, Layout layout, boolean captured) {
        try {
            HttpsServer s = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            s.setHttpsConfigurator(new HttpsConfigurator(PemTls.sslContext(null, cert, key)));
            ExecutorService executor = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "redfish-test-server");
                t.setDaemon(true);
                return t;
            });
            s.setExecutor(executor);
            RedfishTestServer rf = new RedfishTestServer(s, executor, layout, captured);
            s.createContext("/", rf::handle);
            s.start();
            return rf;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the Redfish test server: " + e, e);
        }
    }

    public String url() {
        return "https://127.0.0.1:" + server.getAddress().getPort();
    }

    public String url(String host) {
        return "https://" + host + ":" + server.getAddress().getPort();
    }

    public RedfishTestServer account(String newUser, String newPassword) {
        this.user = newUser;
        this.password = newPassword;
        return this;
    }

    public RedfishTestServer basicAllowed(boolean allowed) {
        this.basicAllowed = allowed;
        return this;
    }

    public RedfishTestServer delay(Duration perRequest) {
        this.delay = perRequest;
        return this;
    }

    /** Only requests for {@code path} wait {@code wait} before they are answered (a BMC stuck on one resource). */
    public RedfishTestServer delayOn(String path, Duration wait) {
        this.delayedPath = path;
        this.delay = wait;
        return this;
    }

    /** Every request answers this status (e.g. 503) with a Redfish error body; 0 turns it off. */
    public RedfishTestServer failWith(int status) {
        this.failStatus = status;
        return this;
    }

    /** The Manager's DateTime runs this far ahead of the real clock (negative: behind). */
    public RedfishTestServer clockOffset(Duration offset) {
        this.clockOffset = offset;
        return this;
    }

    /**
     * The session login answers this Location instead of the session's own URI (a BMC that answers with another
     * resource, e.g. /redfish/v1/AccountService/Accounts/2); null: the session's URI.
     */
    public RedfishTestServer sessionLocation(String location) {
        this.sessionLocation = location;
        return this;
    }

    /** Log entry collections answer this many Members per page, with Members@odata.nextLink. */
    public RedfishTestServer pageSize(int size) {
        this.pageSize = size;
        return this;
    }

    /** "GET /redfish/v1", "POST /redfish/v1/SessionService/Sessions", ... in the order received. */
    public List<String> requests() {
        return List.copyOf(requests);
    }

    public int maxConcurrent() {
        return maxConcurrent.get();
    }

    public int openSessions() {
        return sessions.size();
    }

    /** The resource at {@code path}, to shape it further in a test (remove a field, add an odd one). */
    public ObjectNode resource(String path) {
        return resources.get(path);
    }

    public void put(String path, ObjectNode body) {
        resources.put(path, body);
    }

    // ---- fixtures ----------------------------------------------------------------------------------------------

    private void root() {
        // ServiceRoot.v1_15_0, after DMTF Redfish-Mockup-Server public-rackmount1/index.json
        ObjectNode root = object("#ServiceRoot.v1_15_0.ServiceRoot", "/redfish/v1/");
        root.put("Id", "RootService");
        root.put("Name", "Root Service");
        root.put("RedfishVersion", "1.15.0");
        root.put("UUID", "92384634-2938-2342-8820-489239905423");
        root.set("Systems", link("/redfish/v1/Systems"));
        root.set("Managers", link("/redfish/v1/Managers"));
        root.set("SessionService", link("/redfish/v1/SessionService"));
        root.putObject("Links").set("Sessions", link(SESSIONS));
        resources.put("/redfish/v1", root);
        ObjectNode systems = object("#ComputerSystemCollection.ComputerSystemCollection", "/redfish/v1/Systems");
        systems.put("Name", "Computer System Collection");
        systems.putArray("Members");
        systems.put("Members@odata.count", 0);
        resources.put("/redfish/v1/Systems", systems);
        ObjectNode managers = object("#ManagerCollection.ManagerCollection", "/redfish/v1/Managers");
        managers.putArray("Members").add(link(layout.manager));
        managers.put("Members@odata.count", 1);
        resources.put("/redfish/v1/Managers", managers);
        // Manager.v1_x with its LogServices, after public-rackmount1/Managers/BMC/index.json
        ObjectNode manager = object("#Manager.v1_19_0.Manager", layout.manager);
        manager.put("Id", layout.manager.substring(layout.manager.lastIndexOf('/') + 1));
        manager.put("ManagerType", "BMC");
        manager.set("LogServices", link(layout.manager + "/LogServices"));
        resources.put(layout.manager, manager);
        ObjectNode managerLogs = object("#LogServiceCollection.LogServiceCollection", layout.manager + "/LogServices");
        managerLogs.putArray("Members");
        resources.put(layout.manager + "/LogServices", managerLogs);
        if (layout.log.startsWith(layout.manager)) {
            addLogService(layout.manager + "/LogServices", layout.log, layout.logId, layout.logEntryType);
        }
    }

    private void addLogService(String collectionPath, String path, String id, String entryType) {
        ((ArrayNode) resources.get(collectionPath).get("Members")).add(link(path));
        // LogService.v1_4_0, after public-rackmount1/Managers/BMC/LogServices/Log/index.json
        ObjectNode service = object("#LogService.v1_4_0.LogService", path);
        service.put("Id", id);
        service.put("Name", "System Log Service");
        service.put("MaxNumberOfRecords", 1000);
        service.put("OverWritePolicy", "WrapsWhenFull");
        service.put("LogEntryType", entryType);
        service.put("ServiceEnabled", true);
        service.putObject("Actions").putObject("#LogService.ClearLog").put("target", path + "/Actions/LogService.ClearLog");
        service.set("Entries", link(path + "/Entries"));
        resources.put(path, service);
        ObjectNode entries = object("#LogEntryCollection.LogEntryCollection", path + "/Entries");
        entries.put("Name", "Log Service Collection");
        entries.putArray("Members");
        entries.put("Members@odata.count", 0);
        resources.put(path + "/Entries", entries);
    }

    /**
     * Adds a ComputerSystem (ComputerSystem.v1_22_0, after public-rackmount1/Systems/437XR1138R2/index.json: UUID,
     * PowerState, Status, BootProgress, LastResetTime, LogServices, Links.ManagedBy, and the Reset action a reader
     * must never use). {@code powerState} null leaves PowerState out.
     */
    public RedfishTestServer system(String id, String uuid, String powerState) {
        String path = layout.systemsPrefix + id;
        ObjectNode s = object("#ComputerSystem.v1_22_0.ComputerSystem", path);
        s.put("Id", id);
        s.put("Name", "System " + id);
        s.put("SystemType", "Physical");
        if (uuid != null) {
            s.put("UUID", uuid);
        }
        ObjectNode status = s.putObject("Status");
        status.put("State", "Off".equals(powerState) ? "StandbyOffline" : "Enabled");
        status.put("Health", "OK");
        if (powerState != null) {
            s.put("PowerState", powerState);
        }
        ObjectNode boot = s.putObject("BootProgress");
        boot.put("LastState", "Off".equals(powerState) ? "None" : "OSRunning");
        boot.put("LastStateTime", "2026-10-01T04:14:13+09:00");
        s.put("LastResetTime", "2026-10-01T04:02:57+09:00");
        s.set("LogServices", link(path + "/LogServices"));
        s.putObject("Links").putArray("ManagedBy").add(link(layout.manager));
        ObjectNode reset = s.putObject("Actions").putObject("#ComputerSystem.Reset");
        reset.put("target", path + "/Actions/ComputerSystem.Reset");
        reset.putArray("ResetType@Redfish.AllowableValues").add("On").add("ForceOff").add("GracefulShutdown");
        resources.put(path, s);
        ObjectNode systemLogs = object("#LogServiceCollection.LogServiceCollection", path + "/LogServices");
        systemLogs.putArray("Members");
        resources.put(path + "/LogServices", systemLogs);
        if (layout.log.startsWith(path + "/")) {
            addLogService(path + "/LogServices", layout.log, layout.logId, layout.logEntryType);
        }
        ObjectNode systems = resources.get("/redfish/v1/Systems");
        ((ArrayNode) systems.get("Members")).add(link(path));
        systems.put("Members@odata.count", systems.get("Members").size());
        return this;
    }

    /** Sets a system's LastResetTime and BootProgress (OSRunning since {@code osRunningSince}). */
    public RedfishTestServer booted(String id, String lastResetTime, String osRunningSince) {
        ObjectNode s = resources.get(layout.systemsPrefix + id);
        s.put("LastResetTime", lastResetTime);
        ObjectNode boot = s.putObject("BootProgress");
        boot.put("LastState", "OSRunning");
        boot.put("LastStateTime", osRunningSince);
        return this;
    }

    /**
     * Adds a LogEntry (LogEntry.v1_14_0, after public-rackmount1/Managers/BMC/LogServices/Log/Entries/index.json) to
     * the layout's power log. {@code entryCode} and {@code messageId} may be null.
     */
    public RedfishTestServer logEntry(String created, String messageId, String message, String entryCode) {
        ObjectNode entries = resources.get(layout.log + "/Entries");
        if (entries == null) {
            throw new IllegalStateException("add the system first: " + layout.log + " belongs to it");
        }
        ArrayNode members = (ArrayNode) entries.get("Members");
        String id = String.valueOf(members.size() + 1);
        ObjectNode e = object("#LogEntry.v1_14_0.LogEntry", layout.log + "/Entries/" + id);
        e.put("Id", id);
        e.put("Name", "Log Entry " + id);
        e.put("EntryType", layout.logEntryType.equals("SEL") ? "SEL" : "Event");
        e.put("Severity", "OK");
        if (created != null) {
            e.put("Created", created);
        }
        if (message != null) {
            e.put("Message", message);
        }
        if (messageId != null) {
            e.put("MessageId", messageId);
        }
        if (entryCode != null) {
            e.put("EntryCode", entryCode);
        }
        members.add(e);
        entries.put("Members@odata.count", members.size());
        return this;
    }

    private static ObjectNode object(String type, String id) {
        ObjectNode o = JSON.createObjectNode();
        o.put("@odata.type", type);
        o.put("@odata.id", id);
        return o;
    }

    private static ObjectNode link(String path) {
        ObjectNode o = JSON.createObjectNode();
        o.put("@odata.id", path);
        return o;
    }

    // ---- serving -----------------------------------------------------------------------------------------------

    private void handle(HttpExchange ex) throws IOException {
        int now = inFlight.incrementAndGet();
        maxConcurrent.accumulateAndGet(now, Math::max);
        try (ex) {
            String method = ex.getRequestMethod();
            String rawPath = ex.getRequestURI().getRawPath();
            String query = ex.getRequestURI().getRawQuery();
            requests.add(method + " " + rawPath + (query == null ? "" : "?" + query));
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (!delay.isZero() && (delayedPath == null || delayedPath.equals(trim(rawPath)))) {
                try {
                    Thread.sleep(delay.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            String path = trim(rawPath);
            if (failStatus != 0) {
                error(ex, failStatus, "Base.1.8.ServiceTemporarilyUnavailable");
                return;
            }
            if (method.equals("GET") && path.equals("/redfish/v1")) {
                json(ex, 200, resources.get(path));
                return;
            }
            if (method.equals("POST") && path.equals(SESSIONS)) {
                login(ex, body);
                return;
            }
            String token = ex.getRequestHeaders().getFirst("X-Auth-Token");
            if (!authorized(ex, token)) {
                error(ex, 401, "Base.1.8.NoValidSession");
                return;
            }
            if (method.equals("DELETE") && path.startsWith(SESSIONS + "/") && sessions.containsKey(path)) {
                sessions.remove(path);
                ex.sendResponseHeaders(204, -1);
                return;
            }
            if (!method.equals("GET")) {
                error(ex, 405, "Base.1.8.OperationNotAllowed");
                return;
            }
            ObjectNode resource = resources.get(path);
            if (resource == null) {
                error(ex, 404, "Base.1.8.ResourceMissingAtURI");
                return;
            }
            json(ex, 200, withClock(page(resource, query)));
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private boolean authorized(HttpExchange ex, String token) {
        if (token != null) {
            return sessions.containsValue(token);
        }
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        if (!basicAllowed || auth == null || !auth.startsWith("Basic ")) {
            return false;
        }
        String decoded = new String(Base64.getDecoder().decode(auth.substring(6)), StandardCharsets.UTF_8);
        return decoded.equals(user + ":" + password);
    }

    private void login(HttpExchange ex, byte[] body) throws IOException {
        JsonNode login;
        try {
            login = JSON.readTree(body);
        } catch (RuntimeException e) {
            error(ex, 400, "Base.1.8.MalformedJSON");
            return;
        }
        if (!user.equals(login.path("UserName").asString("")) || !password.equals(login.path("Password").asString(""))) {
            error(ex, 401, "Base.1.8.InvalidCredentials");
            return;
        }
        String path = SESSIONS + "/" + sessionIds.incrementAndGet();
        String token = java.util.UUID.randomUUID().toString().replace("-", "");
        sessions.put(path, token);
        ObjectNode session = object("#Session.v1_6_0.Session", path);
        session.put("UserName", user);
        ex.getResponseHeaders().set("X-Auth-Token", token);
        ex.getResponseHeaders().set("Location", sessionLocation == null ? path : sessionLocation);
        json(ex, 201, session);
    }

    /** A collection page: Members from $skip, at most pageSize, with Members@odata.nextLink when more follow. */
    private ObjectNode page(ObjectNode resource, String query) {
        if (captured) {
            return resource;
        }
        JsonNode members = resource.get("Members");
        if (members == null || !members.isArray() || members.size() <= pageSize && query == null) {
            return resource;
        }
        int skip = 0;
        if (query != null && query.startsWith("$skip=")) {
            skip = Integer.parseInt(query.substring(6));
        }
        ObjectNode out = resource.deepCopy();
        ArrayNode page = out.putArray("Members");
        for (int i = skip; i < Math.min(members.size(), skip + pageSize); i++) {
            page.add(members.get(i));
        }
        if (skip + pageSize < members.size()) {
            out.put("Members@odata.nextLink", resource.path("@odata.id").asString() + "?$skip=" + (skip + pageSize));
        }
        return out;
    }

    /** A Manager carries the BMC's clock in DateTime (Manager.v1_x), offset as {@link #clockOffset} says. */
    private ObjectNode withClock(ObjectNode resource) {
        if (!resource.path("@odata.type").asString("").startsWith("#Manager.")) {
            return resource;
        }
        ObjectNode out = resource.deepCopy();
        out.put("DateTime", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(Instant.now().plus(clockOffset)
                .atOffset(ZoneOffset.ofHours(9))));
        out.put("DateTimeLocalOffset", "+09:00");
        return out;
    }

    private static void json(HttpExchange ex, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json;charset=utf-8");
        ex.getResponseHeaders().set("OData-Version", "4.0");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** A Redfish error body (DSP0266 "Error responses"): error.code, error.message, @Message.ExtendedInfo. */
    private static void error(HttpExchange ex, int status, String messageId) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        ObjectNode error = body.putObject("error");
        error.put("code", messageId);
        error.put("message", "See @Message.ExtendedInfo for more information.");
        error.putArray("@Message.ExtendedInfo").addObject().put("MessageId", messageId);
        json(ex, status, body);
    }

    private static String trim(String path) {
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    /** The requests of one method, e.g. every DELETE sent. */
    public List<String> requests(String method) {
        List<String> out = new ArrayList<>();
        for (String r : requests) {
            if (r.startsWith(method + " ")) {
                out.add(r);
            }
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
