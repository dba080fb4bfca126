package io.nodegate.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations the way operators type them: 30s, 5m, 72h, 3d, or combined (1h30m). picocli prefixes the error with
 * the option name ("Invalid value for option '--batch-window': ...").
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern WHOLE = Pattern.compile("^(\\d+[smhd])+$");
    private static final Pattern PART = Pattern.compile("(\\d+)([smhd])");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String value) {
        String v = value == null ? "" : value.trim();
        if (!WHOLE.matcher(v).matches()) {
            throw new TypeConversionException("'" + value + "' is not a duration: use a whole number with a unit "
                    + "s, m, h or d, e.g. 30s, 5m, 72h, 3d or 1h30m");
        }
        Duration total = Duration.ZERO;
        Matcher m = PART.matcher(v);
        try {
            while (m.find()) {
                long n = Long.parseLong(m.group(1));
                total = total.plus(switch (m.group(2)) {
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                });
            }
        } catch (ArithmeticException | NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is too large a duration");
        }
        return total;
    }
}
