package io.nodegate.model;

/** status.nodeInfo. bootID changes at every boot; systemUUID and machineID identify the host. */
public record NodeSystemInfo(String bootId, String systemUuid, String machineId, String kernelVersion,
                             String osImage, String kubeletVersion, String containerRuntimeVersion) {

    public static final NodeSystemInfo EMPTY = new NodeSystemInfo(null, null, null, null, null, null, null);

    /** A UUID that identifies something: not empty and not all zeros (some firmware reports zeros). */
    public static boolean isMeaningfulId(String id) {
        return id != null && !id.isBlank() && !id.replaceAll("[0\\-]", "").isEmpty();
    }
}
