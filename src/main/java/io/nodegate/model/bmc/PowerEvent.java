package io.nodegate.model.bmc;

import java.time.Instant;

/**
 * One power transition a BMC's log recorded (DSP0268 LogEntry.v1_x): when ({@code Created}, as the BMC's clock
 * said it), which entry ({@code @odata.id}), and what it said.
 *
 * @param kind      whether the entry records the host going off or coming on
 * @param created   the entry's Created time; never null (an entry without one cannot date a transition)
 * @param entry     the entry's @odata.id, the source a reader can open
 * @param messageId the entry's MessageId (e.g. OpenBMC.0.1.DCPowerOff), null when it has none
 * @param message   the entry's Message text
 */
public record PowerEvent(Kind kind, Instant created, String entry, String messageId, String message) {

    public enum Kind { OFF, ON }

    /** "LogEntry /redfish/v1/.../Entries/41 Created 2026-10-22T05:23:50Z (Host system DC power is off)". */
    public String describe() {
        return "LogEntry " + entry + " Created " + created
                + (message == null || message.isBlank() ? "" : " (" + message.strip() + ")");
    }
}
