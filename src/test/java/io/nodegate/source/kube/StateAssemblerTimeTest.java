package io.nodegate.source.kube;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

import static org.assertj.core.api.Assertions.assertThat;

/** The fast path for the API server's timestamp form must read exactly what the general ISO parser reads. */
class StateAssemblerTimeTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "2026-10-19T06:10:00Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59Z", "0001-01-01T00:00:00Z",
            // impossible values in the fast form: both must reject them
            "2026-02-29T00:00:00Z", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
            "2026-10-19T24:00:00Z", "2026-10-19T23:60:00Z", "2026-10-19T23:59:60Z",
            // MicroTime (a Lease's renewTime) and other fractions, 1 to 9 digits
            "2026-10-19T06:10:00.123456Z", "2026-10-19T06:10:00.1Z", "2026-10-19T06:10:00.000000001Z",
            "2026-10-19T06:10:00.999999999Z", "2026-02-30T06:10:00.123456Z",
            // other shapes go to the general parser
            "2026-10-19T06:10:00.Z", "2026-10-19T06:10:00.1234567890Z", "2026-10-19T06:10:00.12a456Z",
            "2026-10-19T06:10:00,123456Z", "2026-10-19T06:10:00.123456+02:00", "2026-10-19T08:10:00+02:00", "2026-10-19t06:10:00z",
            "2026-10-19 06:10:00Z", "2026-1a-19T06:10:00Z", "+2026-10-19T06:10:00Z", "2026-10-19T06:10:00",
            "garbage-that-is-20ch", "--------------------"})
    void readsWhatTheIsoParserReads(String text) {
        assertThat(StateAssembler.parseOrNull(text)).isEqualTo(iso(text));
    }

    @org.junit.jupiter.api.Test
    void theApiServerFormIsRead() {
        assertThat(StateAssembler.parseOrNull("2026-10-19T06:10:00Z")).isEqualTo(Instant.parse("2026-10-19T06:10:00Z"));
        assertThat(StateAssembler.parseOrNull("2026-02-30T00:00:00Z")).isNull();
        assertThat(StateAssembler.parseOrNull(" ")).isNull();
    }

    private static Instant iso(String text) {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
