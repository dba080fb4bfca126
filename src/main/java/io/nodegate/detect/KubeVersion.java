package io.nodegate.detect;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes gitVersion reduced to what skew rules compare: major and minor. Accepts the distribution
 * suffixes RKE2 and k3s add ({@code v1.34.3+rke2r3}, {@code v1.30.11+k3s1}) and pre-release tags.
 */
public record KubeVersion(int major, int minor, int patch) implements Comparable<KubeVersion> {

    private static final Pattern VERSION = Pattern.compile("^v?(\\d+)\\.(\\d+)(?:\\.(\\d+))?(?:[-+].*)?$");

    public static Optional<KubeVersion> parse(String gitVersion) {
        if (gitVersion == null) {
            return Optional.empty();
        }
        Matcher m = VERSION.matcher(gitVersion.trim());
        if (!m.matches()) {
            return Optional.empty();
        }
        int patch = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
        return Optional.of(new KubeVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), patch));
    }

    public boolean atLeast(int major, int minor) {
        return this.major > major || (this.major == major && this.minor >= minor);
    }

    @Override
    public int compareTo(KubeVersion o) {
        int c = Integer.compare(major, o.major);
        if (c != 0) {
            return c;
        }
        c = Integer.compare(minor, o.minor);
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    @Override
    public String toString() {
        return "v" + major + "." + minor + "." + patch;
    }
}
