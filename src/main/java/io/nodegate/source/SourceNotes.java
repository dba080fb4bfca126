package io.nodegate.source;

/**
 * Notes both sources attach when an optional API is missing. Live and offline use the same words so that a
 * live snapshot and the offline load of its `collect` output are equal.
 */
public final class SourceNotes {
    public static final String CSINODES_NOT_SERVED =
            "CSINode API (storage.k8s.io/v1 csinodes) is not served by this cluster: CSINode checks skipped";
    public static final String CATTLE_SYSTEM_ABSENT =
            "namespace cattle-system does not exist (no Rancher agent): upgrader Job checks skipped";

    private SourceNotes() {
    }

    /** Offline: the input holds no objects of an optional kind and nothing says whether the API exists. */
    public static String notInInput(String what) {
        return "no " + what + " in the input (not collected, or absent): checks on them skipped";
    }
}
