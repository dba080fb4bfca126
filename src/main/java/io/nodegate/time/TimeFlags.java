package io.nodegate.time;

import io.nodegate.InputException;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;

/** The one syntax of a flag that names a moment (--removed-at), read in --tz when it carries no UTC offset. */
public final class TimeFlags {

    private TimeFlags() {
    }

    /**
     * ISO-8601 with an offset (2026-10-19T15:09:00+09:00, …Z), or a local date-time (2026-10-19T15:09 or
     * "2026-10-19 15:09") read in --tz.
     */
    public static Instant parseTime(String text, String zone, String flag) {
        if (text == null) {
            return null;
        }
        String t = text.trim().replace(' ', 'T');
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException ignored) {
            // not offset-qualified: needs --tz
        }
        LocalDateTime local;
        try {
            local = LocalDateTime.parse(t);
        } catch (DateTimeParseException e) {
            throw new InputException(flag + " '" + text + "': expected ISO-8601 such as 2026-10-19T15:09:00+09:00, "
                    + "or 2026-10-19T15:09 with --tz Asia/Seoul");
        }
        if (zone == null) {
            throw new InputException(flag + " '" + text + "' has no UTC offset: add one (+09:00, Z) or give --tz ZONE");
        }
        try {
            return local.atZone(ZoneId.of(zone)).toInstant();
        } catch (java.time.DateTimeException e) {
            throw new InputException("--tz '" + zone + "': unknown time zone (e.g. Asia/Seoul, UTC, +09:00)");
        }
    }
}
