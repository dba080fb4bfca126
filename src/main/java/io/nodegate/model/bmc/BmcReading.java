package io.nodegate.model.bmc;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What one BMC answered, or why it could not be read. A failed BMC is never evidence either way: its systems are
 * unknown, not absent.
 *
 * @param bmc         the BMC's URL, as given
 * @param readAt      when nodegate read it (its own clock)
 * @param clockOffset the BMC's clock minus nodegate's, from its Manager's DateTime; null when not read (no Manager was
 *                    read: only systems that are Off need one) or not given. Log times are the BMC's clock, and
 *                    BMCs without NTP drift by minutes
 * @param systems     its ComputerSystems; empty when it failed
 * @param error       what went wrong (TLS, credentials, timeout, an answer that is not Redfish); null when read
 */
public record BmcReading(String bmc, Instant readAt, Duration clockOffset, List<BmcSystem> systems, String error) {

    public BmcReading {
        systems = systems == null ? List.of() : List.copyOf(systems);
    }

    public static BmcReading failed(String bmc, Instant at, String error) {
        return new BmcReading(bmc, at, null, List.of(), error);
    }

    public boolean ok() {
        return error == null;
    }

    /** A time from this BMC's log on nodegate's clock (the offset taken off); unchanged without an offset. */
    public Instant onOurClock(Instant bmcTime) {
        return bmcTime == null || clockOffset == null ? bmcTime : bmcTime.minus(clockOffset);
    }
}
