package io.nodegate.model.bmc;

import java.util.Locale;

/** What a BMC says about one Node's host. Only POWERED_OFF and RUNNING are evidence; the rest say why there is none. */
public enum PowerVerdict {
    /** PowerState Off. */
    POWERED_OFF,
    /** PowerState On. */
    RUNNING,
    /** PoweringOn, PoweringOff, Paused, or a PowerState that is absent or unknown: no state to rely on yet. */
    TRANSITIONING,
    /** Every BMC given was read and none carries this Node's systemUUID (or the Node has none to bind by). */
    NOT_FOUND,
    /** A BMC failed, or several systems report this Node's UUID (ambiguous): never evidence either way. */
    UNREADABLE;

    /** "powered-off", as printed and in JSON. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The verdict a PowerState value gives (Resource.PowerState in DSP0268; compared without case). */
    public static PowerVerdict of(String powerState) {
        if (powerState == null) {
            return TRANSITIONING;
        }
        return switch (powerState.strip().toLowerCase(Locale.ROOT)) {
            case "on" -> RUNNING;
            case "off" -> POWERED_OFF;
            default -> TRANSITIONING;
        };
    }
}
