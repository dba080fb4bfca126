package io.nodegate.model.bmc;

import java.time.Instant;

/**
 * One ComputerSystem as its BMC described it (DSP0268 ComputerSystem.v1_x). Fields the answer lacked are null.
 *
 * @param bmc              the BMC's URL (as given)
 * @param path             the system's @odata.id, e.g. /redfish/v1/Systems/System.Embedded.1
 * @param uuid             {@code UUID}: the SMBIOS system UUID, the kubelet's systemUUID
 * @param powerState       {@code PowerState} as sent: On, Off, PoweringOn, PoweringOff, Paused, or null
 * @param lastResetTime    {@code LastResetTime}
 * @param bootProgress     {@code BootProgress.LastState} (e.g. OSRunning)
 * @param bootProgressTime {@code BootProgress.LastStateTime}
 * @param health           {@code Status.Health}
 * @param state            {@code Status.State} (Enabled, StandbyOffline, ...)
 * @param log              what its logs say about power; null when they were not read (the system is not Off)
 */
public record BmcSystem(String bmc, String path, String uuid, String powerState, Instant lastResetTime,
                        String bootProgress, Instant bootProgressTime, String health, String state, PowerLog log) {

    /** "https://10.0.0.7/redfish/v1/Systems/1": where a reader finds this system. */
    public String source() {
        return bmc + path;
    }
}
