package io.nodegate.time;

import io.nodegate.InputException;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax of every flag, and the one way durations and ages are printed.
 *
 * <p>Parsing follows Go's {@code time.ParseDuration} (what kubectl's duration flags take: {@code 30s}, {@code 1h30m},
 * {@code 1.5h}, {@code 1500ms}) with two extensions of nodegate's own, neither valid in Go:
 * <ul>
 *   <li>a bare whole number is seconds ({@code --request-timeout 5} is 5 s), everywhere: client-go reads kubectl's
 *   {@code --request-timeout} that way (client-go {@code tools/clientcmd/helpers.go}, {@code ParseTimeout}), and
 *   one rule for every flag beats guessing which flags follow it;</li>
 *   <li>{@code d} for days ({@code 3d}, {@code 7d12h}), the unit kubectl prints ages in.</li>
 * </ul>
 * Units are {@code ms}, {@code s}, {@code m}, {@code h} and {@code d}; a fraction needs a unit ({@code 1.5} is
 * refused, {@code 1.5s} is not), and Go's {@code us}/{@code ns} are refused: nothing here is timed that finely.
 *
 * <p>Printing follows kubectl's AGE column: the two largest units ({@code 3d4h}, {@code 5m2s}, {@code 45s}), and
 * milliseconds only below a second ({@code 200ms}), and tenths for a set value below ten seconds ({@code 1500ms}
 * prints {@code 1.5s}); a measured age keeps whole seconds ({@code 6.223s} prints {@code 6s}).
 */
public final class Durations {

    private static final Pattern WHOLE = Pattern.compile("((\\d+(\\.\\d+)?|\\.\\d+)(ms|s|m|h|d))+");
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?|\\.\\d+)(ms|s|m|h|d)");
    private static final Pattern SECONDS = Pattern.compile("\\d+");
    public static final String SYNTAX = "seconds (e.g. 30), or numbers with a unit ms, s, m, h or d, e.g. 1500ms, 30s, "
            + "5m, 1h30m, 3d";

    private Durations() {
    }

    /**
     * Parses one duration; the exception names {@code what} (usually the flag) and the value.
     *
     * @throws InputException when the text is not a duration
     */
    public static Duration parse(String text, String what) {
        String v = text == null ? "" : text.trim();
        if (SECONDS.matcher(v).matches()) {
            try {
                return Duration.ofSeconds(Long.parseLong(v));
            } catch (NumberFormatException e) {
                throw new InputException(prefix(what) + "'" + text + "' is too large a duration");
            }
        }
        if (!WHOLE.matcher(v).matches()) {
            String hint = v.matches("\\d*\\.\\d+") ? " (a fraction needs a unit: " + v + "s?)"
                    : v.startsWith("P") || v.startsWith("p") ? " (ISO-8601 is not accepted: write 30s, 5m, 1h30m)"
                    : v.startsWith("-") ? " (a duration cannot be negative)" : "";
            throw new InputException(prefix(what) + "'" + text + "' is not a duration" + hint + ": use " + SYNTAX);
        }
        BigDecimal nanos = BigDecimal.ZERO;
        Matcher m = PART.matcher(v);
        while (m.find()) {
            BigDecimal n = new BigDecimal(m.group(1).startsWith(".") ? "0" + m.group(1) : m.group(1));
            long unit = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                case "h" -> 3_600_000_000_000L;
                default -> 86_400_000_000_000L;
            };
            nanos = nanos.add(n.multiply(BigDecimal.valueOf(unit)));
        }
        try {
            BigDecimal seconds = nanos.divideToIntegralValue(BigDecimal.valueOf(1_000_000_000L));
            long nanoPart = nanos.subtract(seconds.multiply(BigDecimal.valueOf(1_000_000_000L))).longValueExact();
            return Duration.ofSeconds(seconds.longValueExact(), nanoPart);
        } catch (ArithmeticException e) {
            throw new InputException(prefix(what) + "'" + text + "' is too large a duration");
        }
    }

    /** {@link #parse}, refusing zero: for timeouts and windows, where zero means nothing could ever succeed. */
    public static Duration parsePositive(String text, String what) {
        Duration d = parse(text, what);
        if (d.isZero()) {
            throw new InputException(prefix(what) + "'" + text + "' must be longer than zero");
        }
        return d;
    }

    private static String prefix(String what) {
        return what == null || what.isEmpty() ? "" : what + " ";
    }

    /** kubectl's AGE style: the two largest units ("3d4h", "5m2s", "45s"); "-" for null; "-3s" before now. */
    public static String format(Duration d) {
        if (d == null) {
            return "-";
        }
        if (d.isNegative()) {
            // A time after "now": clock skew between the collector and the cluster; show it rather than hide it.
            return "-" + format(d.negated());
        }
        long s = d.toSeconds();
        if (s == 0 && d.toMillis() > 0) {
            return d.toMillis() + "ms";
        }
        if (s < 10 && d.toMillisPart() > 0 && d.toMillisPart() % 100 == 0) {
            // a timeout of 1500ms should not print as "1s"; an age of 6.223 s prints as 6s, as kubectl's do
            return BigDecimal.valueOf(d.toMillis()).movePointLeft(3).stripTrailingZeros().toPlainString() + "s";
        }
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
