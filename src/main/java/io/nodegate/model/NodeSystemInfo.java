package io.nodegate.model;

/** status.nodeInfo. bootID changes at every boot; systemUUID and machineID identify the host. */
public record NodeSystemInfo(String bootId, String systemUuid, String machineId, String kernelVersion,
                             String osImage, String kubeletVersion, String containerRuntimeVersion) {

    public static final NodeSystemInfo EMPTY = new NodeSystemInfo(null, null, null, null, null, null, null);

    /** An ID that identifies a host by {@link HostIdentity}'s rule (not empty, not all zeros, a plausible ID). */
    public static boolean isMeaningfulId(String id) {
        return HostIdentity.identifies(id);
    }
}
