package io.nodegate.source.host;

import io.nodegate.model.host.HostReport;
import io.nodegate.CollectionException;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs `systemctl show -p LoadState,ActiveState,SubState,UnitFileState,InactiveEnterTimestampMonotonic UNIT`.
 * The monotonic timestamp (microseconds since boot) is read instead of InactiveEnterTimestamp because the latter
 * is printed in the host's local zone with an abbreviation ("KST") that cannot be parsed reliably; with the boot
 * time from /proc/stat it gives the same instant on every systemd version.
 */
public final class SystemctlServices implements ServiceManager {

    static final String PROPERTIES = "LoadState,ActiveState,SubState,UnitFileState,InactiveEnterTimestampMonotonic";
    /** Per unit: `systemctl show` answers in milliseconds; a systemd that does not answer in 10 s will not. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private final String systemctl;
    private final Duration timeout;

    public SystemctlServices(String systemctl) {
        this(systemctl, DEFAULT_TIMEOUT);
    }

    SystemctlServices(String systemctl, Duration timeout) {
        this.systemctl = systemctl;
        this.timeout = timeout;
    }

    @Override
    public HostReport.Service show(String unit, long bootTimeEpochSeconds) {
        List<String> cmd = new ArrayList<>(List.of(systemctl, "show", "--no-pager", "-p", PROPERTIES, unit));
        String what = "`" + String.join(" ", cmd) + "`";
        BoundedCommand.Result result;
        try {
            result = BoundedCommand.run(cmd, timeout, what);
        } catch (IOException e) {
            throw new CollectionException(what + " could not be run (" + e.getMessage() + "); on a host without "
                    + "systemd, or to read a mounted disk, pass --systemctl with a command that answers like "
                    + "`systemctl show`", e);
        }
        String out = result.output();
        if (result.exitCode() != 0) {
            throw new CollectionException(what + " exited " + result.exitCode() + ": " + out.strip());
        }
        return parse(unit, out, bootTimeEpochSeconds, what);
    }

    static HostReport.Service parse(String unit, String out, long bootTimeEpochSeconds, String what) {
        Map<String, String> props = new HashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                props.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        if (!props.containsKey("LoadState") || !props.containsKey("ActiveState")) {
            throw new CollectionException(what + " answered without LoadState/ActiveState: '" + out.strip() + "'");
        }
        String inactiveSince = null;
        String mono = props.get("InactiveEnterTimestampMonotonic");
        if (mono != null && !mono.isEmpty() && bootTimeEpochSeconds > 0) {
            try {
                long micros = Long.parseLong(mono);
                if (micros > 0) {
                    inactiveSince = Instant.ofEpochSecond(bootTimeEpochSeconds).plusNanos(micros * 1000).toString();
                }
            } catch (NumberFormatException e) {
                throw new CollectionException(what + ": InactiveEnterTimestampMonotonic '" + mono + "' is not a number");
            }
        }
        String fileState = props.get("UnitFileState");
        return new HostReport.Service(unit, props.get("LoadState"), props.get("ActiveState"), props.get("SubState"),
                fileState == null || fileState.isEmpty() ? null : fileState, inactiveSince);
    }
}
