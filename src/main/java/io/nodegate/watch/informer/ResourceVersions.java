package io.nodegate.watch.informer;

/**
 * Orders two resourceVersions, where that can be done honestly.
 *
 * <p>The API contract calls a resourceVersion opaque: clients may only test equality. In practice kube-apiserver's
 * storage writes the etcd revision as a decimal integer (k3s's kine writes its own row counter the same way), every
 * write moves it up, and KEP-5504 "Comparable Resource Versions" (kubernetes/enhancements, sig-api-machinery) makes
 * that a promise: a resourceVersion of a built-in type is a decimal integer without leading zeros that grows with
 * every change, compared by length and then digit by digit. Aggregated API servers need not follow it; such a
 * version is {@link #NOT_COMPARABLE} and the caller must not draw an order from it.
 *
 * <p>Careful: one number counts the writes of the whole etcd, not of one collection. A consistent LIST's version
 * moves with every object of any kind, so "the server's version is higher than the watch's" says nothing about the
 * watched collection. Only "the watch has delivered an event or bookmark at or past the LIST's version" proves the
 * copy holds everything the LIST saw (kube-apiserver's own consistent read from its cache waits for exactly that).
 */
final class ResourceVersions {

    /** Returned by {@link #compare} when either version is not a decimal integer. */
    static final int NOT_COMPARABLE = Integer.MIN_VALUE;

    private ResourceVersions() {
    }

    /** Negative, 0 or positive as {@code a} is older, equal or newer than {@code b}; {@link #NOT_COMPARABLE}. */
    static int compare(String a, String b) {
        if (!decimal(a) || !decimal(b)) {
            return NOT_COMPARABLE;
        }
        if (a.length() != b.length()) {
            return a.length() < b.length() ? -1 : 1;
        }
        int c = a.compareTo(b);
        return Integer.signum(c);
    }

    /** True when {@code version} is known and at or past {@code target} (both decimal). */
    static boolean atLeast(String version, String target) {
        int c = compare(version, target);
        return c != NOT_COMPARABLE && c >= 0;
    }

    private static boolean decimal(String v) {
        if (v == null || v.isEmpty() || (v.length() > 1 && v.charAt(0) == '0')) {
            return false;
        }
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            if (ch < '0' || ch > '9') {
                return false;
            }
        }
        return true;
    }
}
