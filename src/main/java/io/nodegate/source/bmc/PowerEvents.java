package io.nodegate.source.bmc;

import io.nodegate.model.bmc.PowerEvent;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which log entries record the host's power going off or on. First by {@code MessageId}, the registry entry the BMC
 * logged (vendors word the text freely, or leave {@code Message} null), each from the registry or source the vendor
 * publishes; the text only when no MessageId says it (docs/bmc.md, "Which entries are power transitions"):
 * <ul>
 *   <li>OpenBMC {@code OpenBMC.0.1.DCPowerOff} / {@code DCPowerOn} (bmcweb
 *   redfish-core/include/registries/openbmc_message_registry.hpp: "Host system DC power is off");</li>
 *   <li>DMTF {@code ResourceEvent.1.x.ResourcePoweredOff} / {@code ResourcePoweredOn} (DMTF Redfish ResourceEvent
 *   registry 1.1 and later: "This message shall indicate that the value of the PowerState property of a resource has
 *   changed to `Off`"; {@code ResourcePoweringOff} is a transition, not an event here);</li>
 *   <li>HPE iLO 5 {@code iLOEvents.3.x.ServerPoweredOff} / {@code ServerPoweredOn}, logged with {@code Message: null}
 *   in {@code Systems/1/LogServices/Event} (HPE iLO 5 message registry iLOEvents; capture of an XL675d Gen10 Plus in
 *   Cray-HPE/csm-redfish-interface-emulator mockups/XL675d_A100);</li>
 *   <li>AMI MegaRAC {@code EventLog.1.0.PowerStatusChange}, "The power state of resource %1 has changed to type %2",
 *   and HPE Cray {@code CrayAlerts.ResourcePowerStateChanged} (same words, arguments in either order): the state is
 *   the argument On or Off, and the event counts only for the resource the other argument names (a BMC of several
 *   nodes logs them all in one log; captures mockups/Gigabyte and mockups/EX425 of the same repository);</li>
 *   <li>NVIDIA GB200/GB300 OpenBMC: {@code ResourceEvent.1.x.ResourceErrorsDetected} with the argument "Host Main
 *   Power is Off", the CPLD's main-power line; "Hard shutdown timer expired ... Performing hard shutdown." (the
 *   hard-shutdown threshold timer of openbmc/phosphor-fan-presence sensor-monitor, shutdown_alarm_monitor.cpp, which
 *   starts obmc-chassis-hard-poweroff@0.target: the chassis power goes off); "Host Powered ON." (NVIDIA/openbmc
 *   meta-gb200nvl power_status_monitor.sh, logged on a rising edge of RUN_POWER_PG). powerctrl.sh's "SHDN_FORCE_L-O:
 *   RUN_POWER_PG-I failed to deassert after 40 seconds.  Power Off Host Failed." is a forced power-off that left run
 *   power on: the host did not go off, and that entry is never a power-off;</li>
 *   <li>{@code EntryCode} "Transition to Power Off" (LogEntry.v1_x EntryCode, IPMI's generic availability offset);</li>
 *   <li>only then the text ({@code Message}): the IPMI sensor-specific strings BMCs carry over from the SEL (ipmitool
 *   include/ipmitool/ipmi_sel.h: Power Unit "Power off/down", System ACPI Power State "S5/G2: soft-off",
 *   "S4/S5: soft-off", "G3: mechanical off", "Legacy OFF state", and "S0/G0: working", "Legacy ON state" for on),
 *   and plain "powered off", "power is on"... unless the message is about a part (a power supply, a fan, a button,
 *   a redundancy state: HPE's "Input Power Loss or Unplugged Power Cord ... (Power Supply 1)" is a supply losing
 *   its input, not the host going off) or says that something failed.</li>
 * </ul>
 * A SEL record whose {@code EntryCode} is "Deassert" says the condition ended, not that it began: not an event here.
 * An entry whose {@code Links.OriginOfCondition} is another ComputerSystem is about that system, not this one.
 */
final class PowerEvents {

    private static final Pattern OFF_TEXT = Pattern.compile(
            "\\b(power(ed|ing)?[ _-]?(off|down)|power is off|soft[- ]off|mechanical off|legacy off state)\\b",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern ON_TEXT = Pattern.compile(
            "\\b(power(ed|ing)?[ _-]?on|power is on|power restored|S0/G0: working|legacy on state)\\b",
            Pattern.CASE_INSENSITIVE);
    /** phosphor-fan-presence's hard-shutdown timer: the chassis is powered off when it expires. */
    private static final Pattern HARD_SHUTDOWN = Pattern.compile(
            "\\bhard shutdown timer expired\\b.*\\bperforming hard shutdown\\b", Pattern.CASE_INSENSITIVE);
    /** Messages about a part of the machine, not the host's power: "Power supply 2 is off", "Power button pressed". */
    private static final Pattern ABOUT_A_PART = Pattern.compile(
            "supply|psu|fan|button|redundan|outlet|circuit|breaker|adapter|capping|budget|policy",
            Pattern.CASE_INSENSITIVE);
    /** "Power Off Host Failed.": an attempt that did not happen is no transition. */
    private static final Pattern FAILED = Pattern.compile("\\b(fail(ed|s|ure)?|unable|cannot|could not)\\b",
            Pattern.CASE_INSENSITIVE);

    private PowerEvents() {
    }

    /** The power event this entry records for any system, or null when it is none or has no date. */
    static PowerEvent of(JsonNode entry) {
        return of(entry, null);
    }

    /** The power event this entry records for the system at {@code system}, or null when it is none or undated. */
    static PowerEvent of(JsonNode entry, String system) {
        PowerEvent.Kind kind = kind(entry, system);
        if (kind == null) {
            return null;
        }
        Instant created = time(entry.path("Created").asString(null));
        if (created == null) {
            return null;
        }
        return new PowerEvent(kind, created, entry.path("@odata.id").asString(null),
                entry.path("MessageId").asString(null), entry.path("Message").asString(null));
    }

    static PowerEvent.Kind kind(JsonNode entry) {
        return kind(entry, null);
    }

    /**
     * Off, on, or null (no power transition of this system). {@code system} is the ComputerSystem's path; null
     * accepts an event about any resource.
     */
    static PowerEvent.Kind kind(JsonNode entry, String system) {
        String origin = RedfishReader.link(entry.path("Links").path("OriginOfCondition"));
        if (system != null && origin != null && origin.startsWith("/redfish/v1/Systems/")
                && !RedfishHttp.samePath(origin, system) && !origin.startsWith(trim(system) + "/")) {
            return null;
        }
        String id = entry.path("MessageId").asString("");
        String registry = id.contains(".") ? id.substring(0, id.indexOf('.')).toLowerCase(Locale.ROOT) : "";
        String key = id.substring(id.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        switch (key) {
            case "dcpoweroff", "resourcepoweredoff":
                return PowerEvent.Kind.OFF;
            case "dcpoweron", "resourcepoweredon":
                return PowerEvent.Kind.ON;
            case "resourcepoweringoff", "resourcepoweringon":
                // DMTF: "the PowerState ... is transitioning": on the way, not there; its text must not be read as done
                return null;
            case "serverpoweredoff":
                return registry.equals("iloevents") ? PowerEvent.Kind.OFF : null;
            case "serverpoweredon":
                return registry.equals("iloevents") ? PowerEvent.Kind.ON : null;
            case "powerstatuschange", "resourcepowerstatechanged":
                return stateChange(entry.path("MessageArgs"), system);
            case "resourceerrorsdetected":
                // NVIDIA's CPLD reports main power through the DMTF registry: args [FW_CPLD_0, Host Main Power is Off]
                for (JsonNode arg : entry.path("MessageArgs")) {
                    if (arg.isString() && arg.asString().strip().equalsIgnoreCase("Host Main Power is Off")) {
                        return PowerEvent.Kind.OFF;
                    }
                }
                return null;
            default:
                break;
        }
        String code = entry.path("EntryCode").asString("").strip();
        if ("transition to power off".equalsIgnoreCase(code)) {
            return PowerEvent.Kind.OFF;
        }
        if ("deassert".equalsIgnoreCase(code)) {
            return null;
        }
        String message = entry.path("Message").asString("");
        if (message.isBlank() || FAILED.matcher(message).find()) {
            return null;
        }
        if (HARD_SHUTDOWN.matcher(message).find()) {
            return PowerEvent.Kind.OFF;
        }
        if (ABOUT_A_PART.matcher(message).find()) {
            return null;
        }
        if (OFF_TEXT.matcher(message).find()) {
            return PowerEvent.Kind.OFF;
        }
        if (ON_TEXT.matcher(message).find()) {
            return PowerEvent.Kind.ON;
        }
        return null;
    }

    /**
     * AMI's and Cray's "the power state of resource %1 has changed to type %2": the state is the argument On or Off,
     * the resource the argument that is a path. A path naming another system makes it that system's event.
     */
    private static PowerEvent.Kind stateChange(JsonNode args, String system) {
        PowerEvent.Kind kind = null;
        String resource = null;
        for (JsonNode arg : args) {
            String a = arg.isString() ? arg.asString().strip() : "";
            if (a.equalsIgnoreCase("Off")) {
                kind = PowerEvent.Kind.OFF;
            } else if (a.equalsIgnoreCase("On")) {
                kind = PowerEvent.Kind.ON;
            } else if (a.startsWith("/redfish/")) {
                resource = a;
            }
        }
        if (kind != null && system != null && resource != null && !RedfishHttp.samePath(resource, system)) {
            return null;
        }
        return kind;
    }

    private static String trim(String path) {
        String p = path.strip();
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    /** Created as DSP0268 writes it (Edm.DateTimeOffset: 2026-10-22T05:23:50+09:00); null when absent or not one. */
    static Instant time(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text.strip()).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
