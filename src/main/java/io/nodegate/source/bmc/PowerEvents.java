package io.nodegate.source.bmc;

import io.nodegate.model.bmc.PowerEvent;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which log entries record the host's power going off or on. Vendors put these in different logs and words, so the
 * rule is a list, each line from a shape seen in the field (docs/bmc.md, "Where each vendor logs power"):
 * <ul>
 *   <li>{@code MessageId} ending in {@code DCPowerOff} / {@code DCPowerOn}: OpenBMC's registry (bmcweb
 *   redfish-core/include/registries/openbmc_message_registry.hpp: "Host system DC power is off");</li>
 *   <li>{@code EntryCode} "Transition to Power Off" (LogEntry.v1_x EntryCode, IPMI's generic availability offset);</li>
 *   <li>SEL text ({@code Message}): the IPMI sensor-specific strings BMCs carry over from the SEL (ipmitool
 *   include/ipmitool/ipmi_sel.h: Power Unit "Power off/down", System ACPI Power State "S5/G2: soft-off",
 *   "S4/S5: soft-off", "G3: mechanical off", "Legacy OFF state", and "S0/G0: working", "Legacy ON state" for on),
 *   and plain "powered off", "power is on"... unless the message is about a part (a power supply, a fan, a button,
 *   a redundancy state), which says nothing about the host.</li>
 * </ul>
 * A SEL record whose {@code EntryCode} is "Deassert" says the condition ended, not that it began: not an event here.
 * Anything else is not a power event. An entry nodegate cannot date (no {@code Created}) is not one either.
 */
final class PowerEvents {

    private static final Set<String> OFF_IDS = Set.of("dcpoweroff");
    private static final Set<String> ON_IDS = Set.of("dcpoweron");
    private static final Pattern OFF_TEXT = Pattern.compile(
            "\\b(power(ed|ing)?[ _-]?(off|down)|power is off|soft[- ]off|mechanical off|legacy off state)\\b",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern ON_TEXT = Pattern.compile(
            "\\b(power(ed|ing)?[ _-]?on|power is on|power restored|S0/G0: working|legacy on state)\\b",
            Pattern.CASE_INSENSITIVE);
    /** Messages about a part of the machine, not the host's power: "Power supply 2 is off", "Power button pressed". */
    private static final Pattern ABOUT_A_PART = Pattern.compile(
            "supply|psu|fan|button|redundan|outlet|circuit|breaker|adapter|capping|budget|policy",
            Pattern.CASE_INSENSITIVE);

    private PowerEvents() {
    }

    /** The power event this entry records, or null when it is none. */
    static PowerEvent of(JsonNode entry) {
        PowerEvent.Kind kind = kind(entry);
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
        String id = entry.path("MessageId").asString("");
        String last = id.substring(id.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        if (OFF_IDS.contains(last)) {
            return PowerEvent.Kind.OFF;
        }
        if (ON_IDS.contains(last)) {
            return PowerEvent.Kind.ON;
        }
        String code = entry.path("EntryCode").asString("").strip();
        if ("transition to power off".equalsIgnoreCase(code)) {
            return PowerEvent.Kind.OFF;
        }
        if ("deassert".equalsIgnoreCase(code)) {
            return null;
        }
        String message = entry.path("Message").asString("");
        if (message.isBlank() || ABOUT_A_PART.matcher(message).find()) {
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
