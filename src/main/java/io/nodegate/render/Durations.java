package io.nodegate.render;

import java.time.Duration;

/** Durations for people: the two largest units, like kubectl's AGE ("3d4h", "5m2s", "52s"). */
public final class Durations {

    private Durations() {
    }

    public static String human(Duration d) {
        if (d == null) {
            return "-";
        }
        if (d.isNegative()) {
            // A time after "now": clock skew between the collector and the cluster; show it rather than hide it.
            return "-" + human(d.negated());
        }
        long s = d.toSeconds();
        long days = s / 86_400;
        long hours = (s % 86_400) / 3_600;
        long minutes = (s % 3_600) / 60;
        long seconds = s % 60;
        if (days > 0) {
            return days + "d" + (hours > 0 ? hours + "h" : "");
        }
        if (hours > 0) {
            return hours + "h" + (minutes > 0 ? minutes + "m" : "");
        }
        if (minutes > 0) {
            return minutes + "m" + (seconds > 0 ? seconds + "s" : "");
        }
        return seconds + "s";
    }
}
