package io.nodegate.model.bmc;

import java.util.List;

/**
 * The BMC section of a snapshot. Honest absence: {@code read == false} means no BMC was asked (no --bmc given), which
 * says nothing about power; {@code read == true} with no readings cannot happen (an empty --bmc list is a usage
 * error), and a BMC that failed is in {@code bmcs} with its error.
 */
public record BmcReadings(boolean read, List<BmcReading> bmcs) {

    public static final BmcReadings NOT_READ = new BmcReadings(false, List.of());

    public BmcReadings {
        bmcs = bmcs == null ? List.of() : List.copyOf(bmcs);
    }

    public static BmcReadings of(List<BmcReading> readings) {
        return new BmcReadings(true, readings);
    }

    public List<BmcReading> failed() {
        return bmcs.stream().filter(r -> !r.ok()).toList();
    }
}
