package io.nodegate.cli;

import io.nodegate.InputException;
import io.nodegate.time.Durations;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;

/**
 * Every duration flag's converter ({@link Durations}' syntax: 1500ms, 30s, 5m, 1h30m, 3d, and 5 for 5 s). picocli prefixes the
 * error with the option name ("Invalid value for option '--batch-window': ...") and exits 2.
 */
public class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value, null);
        } catch (InputException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    /** For timeouts and windows: zero is refused (nothing could ever finish within it). */
    public static final class Positive implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Durations.parsePositive(value, null);
            } catch (InputException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
