package io.nodegate.source.host;

import io.nodegate.model.host.HostReport;

/** Asks the service manager about one unit. Injected so that tests (and --root inspections) can supply their own. */
public interface ServiceManager {

    /**
     * The unit's load/active/enabled state; a unit systemd does not know has loadState "not-found".
     * {@code bootTimeEpochSeconds} turns systemd's monotonic timestamps into wall-clock time (0 = unknown).
     */
    HostReport.Service show(String unit, long bootTimeEpochSeconds);
}
