package io.nodegate.model.bmc;

import java.time.Instant;

/**
 * One Node's power verdict and where it came from.
 *
 * @param node     the Node's name
 * @param verdict  what the BMC says
 * @param system   the ComputerSystem bound to the Node (null for not-found and unreadable)
 * @param reading  the reading of that system's BMC (null when no system is bound)
 * @param powerOff the logged power-off that explains an Off now (null when none, or not powered-off)
 * @param source   the BMC URL and the field or log entry the verdict rests on, or why there is none
 */
public record NodePower(String node, PowerVerdict verdict, BmcSystem system, BmcReading reading, PowerEvent powerOff,
                        String source) {

    /** The power-off time on nodegate's clock (the BMC's clock offset taken off); null without a power-off entry. */
    public Instant powerOffTime() {
        return powerOff == null ? null : reading.onOurClock(powerOff.created());
    }

    /** The BMC URL, or null when no BMC carries this Node. */
    public String bmc() {
        return system == null ? null : system.bmc();
    }
}
